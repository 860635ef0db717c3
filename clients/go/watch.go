package mazziere

// Watch: a hosted table's updates (HostService.Watch) that come back by themselves after a cut connection or a
// server's restart, resuming from the last update delivered, so the caller sees every update once, in order.

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// CapabilityHeader is the metadata key of a hosted table's capability (an invite, the spectators' or the owner's).
const CapabilityHeader = "x-table-capability"

// Backoff is how long Watch waits before watching again: the n-th attempt in a row waits a random time between
// half and all of min(Max, First·2^(n-1)), and at least a busy server's RetryInfo delay. Any answer received
// starts the count again. Zero fields take the defaults, 250 ms and 5 s (0.125-0.25 s, 0.25-0.5 s, ... 2.5-5 s).
type Backoff struct {
	First time.Duration
	Max   time.Duration
}

func (b Backoff) delay(attempt int) time.Duration {
	first, longest := b.First, b.Max
	if first <= 0 {
		first = 250 * time.Millisecond
	}
	if longest <= 0 {
		longest = 5 * time.Second
	}
	ceiling := first
	for n := 1; n < attempt && ceiling < longest; n++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, longest)
	return ceiling/2 + rand.N(ceiling/2+1)
}

// WatchOptions tunes Watch; the zero value watches from the table as it is, with the default backoff.
type WatchOptions struct {
	// AfterSeq is WatchRequest.after_seq: 0 starts with the table as it is (a snapshot), -1 with every step from the
	// opening, N with the step after N.
	AfterSeq int64
	Backoff  Backoff
	// OnRetry, if set, is told each time Watch is about to watch again: why (nil for a stream that ended without
	// the closing update, or that fell behind the table) and how long it waits first.
	OnRetry func(err error, delay time.Duration)
}

// Watch calls deliver with every WatchResponse of table tableID that carries an update or a presence change, each
// update once and in order, across reconnections; heartbeats are kept here. It watches again after a jittered
// backoff (WatchOptions.Backoff) when the stream fails as UNAVAILABLE (a server shutting down, SHUTTING_DOWN, or
// one out of reach), breaks off in any other way that is not a refusal (a cut connection), or ends without the
// table's closing update; and when a heartbeat or a presence change says the table is past the last update delivered
// (this stream fell behind). Each time it resumes after that update's seq.
//
// It returns nil after delivering the table's closing update (update.closed); ctx's error once ctx is done; the
// status error of a refusal (PERMISSION_DENIED: a wrong or revoked capability; NOT_FOUND: no such table;
// INVALID_ARGUMENT, FAILED_PRECONDITION, ...; read it with ErrorInfo); or deliver's own error, which stops it.
func Watch(ctx context.Context, host mazzierev1.HostServiceClient, tableID, capability string, options WatchOptions,
	deliver func(*mazzierev1.WatchResponse) error) error {
	w := &watcher{host: host, tableID: tableID, deliver: deliver, order: updateOrder{last: options.AfterSeq}}
	ctx = metadata.AppendToOutgoingContext(ctx, CapabilityHeader, capability)
	for {
		final, err := w.follow(ctx)
		switch {
		case final:
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && isRefusal(err):
			return err
		}
		w.attempt++
		delay := max(options.Backoff.delay(w.attempt), retryDelay(err))
		if options.OnRetry != nil {
			options.OnRetry(err, delay)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

type watcher struct {
	host    mazzierev1.HostServiceClient
	tableID string
	deliver func(*mazzierev1.WatchResponse) error
	order   updateOrder
	attempt int
}

// follow reads one Watch stream to its end. final: Watch returns err as it is (nil once the table closed).
func (w *watcher) follow(ctx context.Context) (final bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	request := &mazzierev1.WatchRequest{TableId: w.tableID, AfterSeq: w.order.resumeFrom()}
	stream, err := w.host.Watch(ctx, request)
	if err != nil {
		return false, err
	}
	for {
		answer, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return false, nil // ended without the closing update: watch again
		}
		if err != nil {
			return false, err
		}
		w.attempt = 0
		delivered, behind := w.order.take(answer)
		if delivered != nil {
			if err := w.deliver(delivered); err != nil {
				return true, err
			}
		}
		if w.order.closed {
			return true, nil
		}
		if behind {
			return false, nil
		}
	}
}

// updateOrder decides which answers to hand on, given the last seq delivered: each update once, in order.
type updateOrder struct {
	last      int64
	delivered bool
	closed    bool
}

// resumeFrom is the after_seq to watch with: the caller's until an update is delivered, then the last update's seq.
// After seq 0 it is -1 (every step from the opening, seq 0 then dropped as a repeat), since after_seq 0 would answer
// the table as it is now and skip the steps between.
func (o *updateOrder) resumeFrom() int64 {
	if o.delivered && o.last == 0 {
		return -1
	}
	return o.last
}

// take returns the answer to deliver (nil: nothing new in it; a presence change whose update was a repeat loses the
// update) and whether to watch again from the last seq (the stream skipped a step, or says the table is further on).
func (o *updateOrder) take(answer *mazzierev1.WatchResponse) (*mazzierev1.WatchResponse, bool) {
	if update := answer.GetUpdate(); update != nil {
		if update.GetSnapshot() || update.GetSeq() == o.last+1 {
			o.last, o.closed, o.delivered = update.GetSeq(), update.GetClosed(), true
			return answer, false
		}
		repeat := update.GetSeq() <= o.last
		if repeat && len(answer.GetPresence()) > 0 {
			return &mazzierev1.WatchResponse{Presence: answer.GetPresence(), Seq: answer.GetSeq()}, false
		}
		return nil, !repeat
	}
	behind := answer.GetSeq() > 0 && answer.GetSeq() > o.last
	if len(answer.GetPresence()) > 0 {
		return answer, behind
	}
	return nil, behind
}

// isRefusal says whether watching again could not help: a refusal, not a cut connection or a server going away.
func isRefusal(err error) bool {
	code, info := ErrorInfo(err)
	switch code {
	case codes.InvalidArgument, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.FailedPrecondition, codes.Aborted, codes.OutOfRange, codes.Unimplemented, codes.Unauthenticated:
		return true
	case codes.ResourceExhausted: // a server at its limit asks to come back later; any other is a refusal
		reason := info.GetReason()
		return reason != "OVERLOADED" && reason != "QUOTA_EXCEEDED"
	}
	return false
}

// retryDelay is the delay of the RetryInfo a busy server sent with err, if any.
func retryDelay(err error) time.Duration {
	st, ok := status.FromError(err)
	if err == nil || !ok {
		return 0
	}
	for _, detail := range st.Details() {
		if retry, ok := detail.(*errdetails.RetryInfo); ok {
			return retry.GetRetryDelay().AsDuration()
		}
	}
	return 0
}
