// Package mazziere is a thin layer over the generated gRPC clients of mazziere.v1.TableService and HostService (in
// gen/mazziere/v1, kept in git, rewritten by `make generate-go`): a connection helper, the ErrorInfo of a refused
// call, and Watch, a hosted table's updates across reconnections (watch.go).
package mazziere

import (
	"errors"
	"os"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// ErrorDomain is the domain of every ErrorInfo the service sends.
const ErrorDomain = "mazziere.v1"

// Target is the server address: $MAZZIERE_TARGET, or localhost:50051.
func Target() string {
	if target := os.Getenv("MAZZIERE_TARGET"); target != "" {
		return target
	}
	return "localhost:50051"
}

// Dial opens a plaintext connection to target ("host:port") and returns the TableService client on it; close the
// connection when done (mazzierev1.NewHostServiceClient(conn) is the HostService client on the same connection).
// For TLS, build the connection yourself with credentials.NewTLS and ReconnectParams, and pass it to
// mazzierev1.NewTableServiceClient.
func Dial(target string) (mazzierev1.TableServiceClient, *grpc.ClientConn, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()), ReconnectParams)
	if err != nil {
		return nil, nil, err
	}
	return mazzierev1.NewTableServiceClient(conn), conn, nil
}

// ReconnectParams has a lost connection tried again within 5 s at most (gRPC's default waits up to 120 s between
// attempts), as Watch's longest backoff: a Watch comes back soon after its server does.
var ReconnectParams = grpc.WithConnectParams(grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
	MinConnectTimeout: 20 * time.Second,
})

// ErrorInfo returns the gRPC code of a failed call and its ErrorInfo (Reason is an ErrorReason name without the
// ERROR_REASON_ prefix, e.g. "STALE_SEQUENCE"; nil when the error carries none).
func ErrorInfo(err error) (codes.Code, *errdetails.ErrorInfo) {
	st, ok := status.FromError(err)
	if !ok {
		var wrapped interface{ GRPCStatus() *status.Status }
		if !errors.As(err, &wrapped) {
			return codes.Unknown, nil
		}
		st = wrapped.GRPCStatus()
	}
	for _, detail := range st.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok && info.GetDomain() == ErrorDomain {
			return st.Code(), info
		}
	}
	return st.Code(), nil
}
