package mazziere

// Watch's order and retries against scripted streams (no server); watch_server_test.go watches a real one.

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// A stream's script: answers, then an error (io.EOF: it ends without a status; nil: it stays open until cancelled).
type script struct {
	answers []*mazzierev1.WatchResponse
	end     error
}

type scriptedStream struct {
	grpc.ClientStream
	ctx  context.Context
	next script
}

func (s *scriptedStream) Recv() (*mazzierev1.WatchResponse, error) {
	if len(s.next.answers) > 0 {
		answer := s.next.answers[0]
		s.next.answers = s.next.answers[1:]
		return answer, nil
	}
	if s.next.end == nil {
		<-s.ctx.Done()
		return nil, status.FromContextError(s.ctx.Err()).Err()
	}
	return nil, s.next.end
}

// scriptedHost answers each Watch with the next script, and notes what it was asked.
type scriptedHost struct {
	mazzierev1.HostServiceClient
	scripts      []script
	afterSeqs    []int64
	capabilities []string
}

func (h *scriptedHost) Watch(ctx context.Context, in *mazzierev1.WatchRequest,
	_ ...grpc.CallOption) (grpc.ServerStreamingClient[mazzierev1.WatchResponse], error) {
	h.afterSeqs = append(h.afterSeqs, in.GetAfterSeq())
	md, _ := metadata.FromOutgoingContext(ctx)
	h.capabilities = append(h.capabilities, md.Get(CapabilityHeader)...)
	if len(h.scripts) == 0 {
		return &scriptedStream{ctx: ctx}, nil
	}
	next := h.scripts[0]
	h.scripts = h.scripts[1:]
	return &scriptedStream{ctx: ctx, next: next}, nil
}

func step(seq int64) *mazzierev1.WatchResponse {
	return &mazzierev1.WatchResponse{Update: &mazzierev1.HostedUpdate{Seq: seq}}
}

func snapshot(seq int64) *mazzierev1.WatchResponse {
	return &mazzierev1.WatchResponse{Update: &mazzierev1.HostedUpdate{Seq: seq, Snapshot: true}}
}

func closing(seq int64) *mazzierev1.WatchResponse {
	return &mazzierev1.WatchResponse{Update: &mazzierev1.HostedUpdate{Seq: seq, Closed: true}}
}

func heartbeat(seq int64) *mazzierev1.WatchResponse {
	return &mazzierev1.WatchResponse{Heartbeat: true, Seq: seq}
}

func presence(seq int64) *mazzierev1.WatchResponse {
	return &mazzierev1.WatchResponse{Presence: []*mazzierev1.Presence{{Seat: 0, Connected: true}}, Seq: seq}
}

// refusal is a status error as the server sends it: an ErrorInfo (unless reason is empty), a RetryInfo if retry > 0.
func refusal(code codes.Code, reason string, retry time.Duration) error {
	st := status.New(code, reason)
	var err error
	if reason != "" {
		if st, err = st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain}); err != nil {
			panic(err)
		}
	}
	if retry > 0 {
		if st, err = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(retry)}); err != nil {
			panic(err)
		}
	}
	return st.Err()
}

type seen struct {
	seqs      []int64
	snapshots []int64
	presences int
	retries   []error
	delays    []time.Duration
}

func watchScripted(t *testing.T, host *scriptedHost, afterSeq int64) (*seen, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got seen
	options := WatchOptions{AfterSeq: afterSeq, Backoff: Backoff{First: time.Millisecond, Max: 4 * time.Millisecond},
		OnRetry: func(err error, delay time.Duration) {
			got.retries = append(got.retries, err)
			got.delays = append(got.delays, delay)
		}}
	err := Watch(ctx, host, "t_1", "invite", options, func(answer *mazzierev1.WatchResponse) error {
		if answer.GetHeartbeat() {
			t.Errorf("a heartbeat was delivered")
		}
		if update := answer.GetUpdate(); update != nil {
			got.seqs = append(got.seqs, update.GetSeq())
			if update.GetSnapshot() {
				got.snapshots = append(got.snapshots, update.GetSeq())
			}
		}
		if len(answer.GetPresence()) > 0 {
			got.presences++
		}
		return nil
	})
	return &got, err
}

func TestWatchDeliversEachUpdateOnceInOrderAcrossReconnects(t *testing.T) {
	shutdown := refusal(codes.Unavailable, "SHUTTING_DOWN", 0)
	host := &scriptedHost{scripts: []script{
		{answers: []*mazzierev1.WatchResponse{snapshot(0), step(1), step(2)}, end: shutdown},
		// a repeat with a presence change keeps the change; a heartbeat past the last step: this stream is behind
		{answers: []*mazzierev1.WatchResponse{presence(0), {Update: step(2).Update, Presence: presence(0).Presence},
			step(3), heartbeat(5), step(4)}},
		{end: io.EOF}, // ended without a status: a cut connection
		{answers: []*mazzierev1.WatchResponse{step(4), step(6), step(5)}}, // a step skipped: watch again
		{answers: []*mazzierev1.WatchResponse{step(5), presence(5), step(6), closing(7), step(8)}},
	}}
	got, err := watchScripted(t, host, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(got.seqs, want) {
		t.Errorf("delivered %v, want %v", got.seqs, want)
	}
	if want := []int64{0, 2, 3, 3, 4}; !slices.Equal(host.afterSeqs, want) {
		t.Errorf("watched after %v, want %v", host.afterSeqs, want)
	}
	if got.presences != 3 || !slices.Equal(got.snapshots, []int64{0}) {
		t.Errorf("%d presence changes (want 3), snapshots %v", got.presences, got.snapshots)
	}
	if len(got.retries) != 4 || status.Code(got.retries[0]) != codes.Unavailable || got.retries[1] != nil {
		t.Errorf("retries %v", got.retries)
	}
	for _, capability := range host.capabilities {
		if capability != "invite" {
			t.Errorf("capability %q sent", capability)
		}
	}
}

func TestWatchAfterSeqZeroResumesFromTheOpening(t *testing.T) {
	// after_seq 0 again would answer the table as it is now, skipping steps: after seq 0, watch from -1
	host := &scriptedHost{scripts: []script{
		{answers: []*mazzierev1.WatchResponse{snapshot(0)}, end: io.EOF},
		{answers: []*mazzierev1.WatchResponse{presence(0), step(0), step(1), closing(2)}},
	}}
	got, err := watchScripted(t, host, 0)
	if err != nil || !slices.Equal(got.seqs, []int64{0, 1, 2}) || !slices.Equal(host.afterSeqs, []int64{0, -1}) {
		t.Errorf("delivered %v after %v (%v)", got.seqs, host.afterSeqs, err)
	}
}

func TestWatchDeliversASnapshotTheServerAnswers(t *testing.T) {
	host := &scriptedHost{scripts: []script{
		{answers: []*mazzierev1.WatchResponse{presence(0), step(10)}, end: io.EOF},
		{answers: []*mazzierev1.WatchResponse{snapshot(8), step(9), closing(10)}}, // the store went back
	}}
	got, err := watchScripted(t, host, 9)
	if err != nil || !slices.Equal(got.seqs, []int64{10, 8, 9, 10}) || !slices.Equal(host.afterSeqs, []int64{9, 10}) {
		t.Errorf("delivered %v after %v (%v)", got.seqs, host.afterSeqs, err)
	}
}

func TestWatchReturnsARefusal(t *testing.T) {
	for _, code := range []codes.Code{codes.PermissionDenied, codes.NotFound, codes.InvalidArgument,
		codes.FailedPrecondition} {
		host := &scriptedHost{scripts: []script{
			{answers: []*mazzierev1.WatchResponse{snapshot(3)}, end: refusal(codes.Unavailable, "", 0)},
			{end: refusal(code, "REFUSED", 0)},
		}}
		got, err := watchScripted(t, host, 0)
		if gotCode, info := ErrorInfo(err); gotCode != code || info.GetReason() != "REFUSED" {
			t.Errorf("%v: returned %v", code, err)
		}
		if !slices.Equal(got.seqs, []int64{3}) || len(got.retries) != 1 {
			t.Errorf("%v: delivered %v, retries %v", code, got.seqs, got.retries)
		}
	}
}

func TestWatchWaitsForABusyServerButNotForAnAnswerTooLarge(t *testing.T) {
	host := &scriptedHost{scripts: []script{
		{end: refusal(codes.ResourceExhausted, "OVERLOADED", 20*time.Millisecond)},
		{end: refusal(codes.ResourceExhausted, "RESPONSE_TOO_LARGE", 0)},
	}}
	got, err := watchScripted(t, host, 0)
	if _, info := ErrorInfo(err); info.GetReason() != "RESPONSE_TOO_LARGE" {
		t.Errorf("returned %v", err)
	}
	if len(got.delays) != 1 || got.delays[0] < 20*time.Millisecond {
		t.Errorf("waited %v, want the server's 20ms at least", got.delays)
	}
}

func TestWatchBacksOffExponentiallyWithJitterUpToItsLongest(t *testing.T) {
	b := Backoff{First: 100 * time.Millisecond, Max: time.Second}
	for attempt, ceiling := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		ceiling *= time.Millisecond
		for range 50 {
			if d := b.delay(attempt + 1); d < ceiling/2 || d > ceiling {
				t.Fatalf("attempt %d waited %v, want %v to %v", attempt+1, d, ceiling/2, ceiling)
			}
		}
	}
	if d := (Backoff{}).delay(100); d < 2500*time.Millisecond || d > 5*time.Second {
		t.Errorf("the default's longest wait: %v", d)
	}
}

func TestWatchStopsWhenCancelledAndOnTheCallersError(t *testing.T) {
	host := &scriptedHost{scripts: []script{{answers: []*mazzierev1.WatchResponse{snapshot(0)}}}}
	ctx, cancel := context.WithCancel(context.Background())
	err := Watch(ctx, host, "t_1", "invite", WatchOptions{}, func(*mazzierev1.WatchResponse) error {
		cancel() // the stream stays open: only the cancel ends it
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("returned %v, want context.Canceled", err)
	}
	stop := errors.New("enough")
	host = &scriptedHost{scripts: []script{{answers: []*mazzierev1.WatchResponse{snapshot(0), step(1)}}}}
	err = Watch(context.Background(), host, "t_1", "invite", WatchOptions{}, func(*mazzierev1.WatchResponse) error {
		return stop
	})
	if !errors.Is(err, stop) || len(host.afterSeqs) != 1 {
		t.Errorf("returned %v after %d streams, want the callback's error after 1", err, len(host.afterSeqs))
	}
}
