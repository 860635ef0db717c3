// The code generators of the Go client (protoc-gen-go, protoc-gen-go-grpc), in a module of their own so that their
// requirements never enter the module graph of a program that requires the client. `make generate-go` builds them
// into ../.bin (`go install tool`).
module github.com/mazziere/mazziere/clients/go/tools

go 1.26.0

tool (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
