package mazziere

// Watch against a real `mazziere serve` that stops and starts again: $MAZZIERE_SERVE is the command (tests/clients
// passes it); without it these tests skip.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// patience bounds every wait (a server's start on a loaded machine, a watcher's catch-up).
const patience = 2 * time.Minute

// server is `mazziere serve` on one port and one data folder (a SQLite store), started again as often as needed,
// with the same sealing keys each time so that its stored tables open again.
type server struct {
	t       *testing.T
	command string
	env     []string
	target  string
	log     string
	process *exec.Cmd
}

func newServer(t *testing.T) *server {
	command := os.Getenv("MAZZIERE_SERVE")
	if command == "" {
		t.Skip("MAZZIERE_SERVE (the mazziere command) is not set")
	}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	key := make([]byte, 32)
	rand.Read(key)
	data := t.TempDir()
	s := &server{t: t, command: command, target: fmt.Sprintf("127.0.0.1:%d", port), log: filepath.Join(data, "log")}
	s.env = append(os.Environ(), "MAZZIERE_HOST=127.0.0.1", fmt.Sprintf("MAZZIERE_PORT=%d", port),
		"MAZZIERE_REST_PORT=0", "MAZZIERE_METRICS_PORT=0", "MAZZIERE_LOG_CALLS=false",
		"MAZZIERE_HEARTBEAT_SECONDS=0.5", "MAZZIERE_DATA_DIR="+data,
		"MAZZIERE_SEAL_KEYS=k1:"+base64.StdEncoding.EncodeToString(key))
	t.Cleanup(func() {
		if s.process != nil {
			s.stop(syscall.SIGKILL)
		}
	})
	return s
}

func (s *server) start() {
	s.t.Helper()
	log, err := os.OpenFile(s.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer log.Close()
	s.process = exec.Command(s.command, "serve")
	s.process.Env, s.process.Stdout, s.process.Stderr = s.env, log, log
	if err := s.process.Start(); err != nil {
		s.t.Fatal(err)
	}
	client, conn, err := Dial(s.target)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if _, err := client.ListGames(ctx, &mazzierev1.ListGamesRequest{}, grpc.WaitForReady(true)); err != nil {
		text, _ := os.ReadFile(s.log)
		s.t.Fatalf("the server did not start: %v\n%s", err, text)
	}
}

func (s *server) stop(how syscall.Signal) {
	s.t.Helper()
	if err := s.process.Process.Signal(how); err != nil {
		s.t.Fatal(err)
	}
	s.process.Wait() // its exit status is the signal's
	s.process = nil
}

type table struct {
	host    mazzierev1.HostServiceClient
	opened  *mazzierev1.OpenTableResponse
	invites map[int32]string
}

func openTable(ctx context.Context, t *testing.T, host mazzierev1.HostServiceClient) *table {
	t.Helper()
	opened, err := host.OpenTable(ctx, &mazzierev1.OpenTableRequest{Game: "sette_e_mezzo", TurnSeconds: 3600,
		Seats: []*mazzierev1.HostedSeat{{Name: "Anna", Chips: 100}, {Name: "Bruno", Chips: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	invites := map[int32]string{}
	for _, invite := range opened.GetInvites() {
		invites[invite.GetSeat()] = invite.GetCapability()
	}
	return &table{host: host, opened: opened, invites: invites}
}

func as(ctx context.Context, capability string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, CapabilityHeader, capability)
}

// play makes moves, each the first legal move of the seat to act, and returns the table's seq after them.
func (tb *table) play(ctx context.Context, t *testing.T, moves int) int64 {
	t.Helper()
	request := &mazzierev1.GetHostedTableRequest{TableId: tb.opened.GetTableId()}
	var seq int64
	for range moves {
		now, err := tb.host.GetHostedTable(as(ctx, tb.invites[0]), request)
		if err != nil {
			t.Fatal(err)
		}
		seat := now.GetUpdate().GetToAct()[0]
		mine, err := tb.host.GetHostedTable(as(ctx, tb.invites[seat]), request)
		if err != nil {
			t.Fatal(err)
		}
		legal := mine.GetUpdate().GetUpdate().GetLegalActions()[0]
		action := &mazzierev1.Action{Seat: seat, Kind: legal.GetKind(), Amount: legal.GetMinAmount(),
			Cards: legal.GetCards(), Target: legal.Target}
		played, err := tb.host.Play(as(ctx, tb.invites[seat]), &mazzierev1.PlayRequest{
			TableId: tb.opened.GetTableId(), ExpectedSeq: mine.GetUpdate().GetSeq(), Action: action})
		if err != nil {
			t.Fatal(err)
		}
		seq = played.GetUpdate().GetSeq()
	}
	return seq
}

// watched is what a Watch delivered, read by the test while it runs.
type watched struct {
	mu      sync.Mutex
	moved   *sync.Cond
	updates []*mazzierev1.HostedUpdate
	retries []string
	done    bool
	err     error
}

func watchInBackground(ctx context.Context, host mazzierev1.HostServiceClient, tableID, capability string) *watched {
	w := &watched{}
	w.moved = sync.NewCond(&w.mu)
	options := WatchOptions{OnRetry: func(err error, _ time.Duration) {
		code, info := ErrorInfo(err)
		w.mu.Lock()
		w.retries = append(w.retries, fmt.Sprintf("%v/%s", code, info.GetReason()))
		w.mu.Unlock()
	}}
	go func() {
		err := Watch(ctx, host, tableID, capability, options, func(answer *mazzierev1.WatchResponse) error {
			if update := answer.GetUpdate(); update != nil {
				w.mu.Lock()
				w.updates = append(w.updates, update)
				w.moved.Broadcast()
				w.mu.Unlock()
			}
			return nil
		})
		w.mu.Lock()
		w.done, w.err = true, err
		w.moved.Broadcast()
		w.mu.Unlock()
	}()
	return w
}

// waitFor waits until the watcher delivered seq (or ended); ctx's deadline wakes it too.
func (w *watched) waitFor(ctx context.Context, t *testing.T, seq int64) {
	t.Helper()
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.moved.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.done && ctx.Err() == nil && (len(w.updates) == 0 || w.updates[len(w.updates)-1].GetSeq() < seq) {
		w.moved.Wait()
	}
	if ctx.Err() != nil {
		t.Fatalf("the watcher did not reach seq %d: %d updates, retries %v", seq, len(w.updates), w.retries)
	}
}

func TestWatchDeliversEverySeqOnceAcrossServerRestarts(t *testing.T) {
	s := newServer(t)
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), 3*patience)
	defer cancel()
	// The players' own connection waits for the server to be back; the watcher's is Dial's, as a client's would be.
	players, err := grpc.NewClient(s.target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true)))
	if err != nil {
		t.Fatal(err)
	}
	defer players.Close()
	host := mazzierev1.NewHostServiceClient(players)
	_, conn, err := Dial(s.target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tb := openTable(ctx, t, host)
	w := watchInBackground(ctx, mazzierev1.NewHostServiceClient(conn), tb.opened.GetTableId(),
		tb.opened.GetSpectators().GetCapability())
	w.waitFor(ctx, t, 0)
	seq := tb.play(ctx, t, 3)
	for _, how := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		w.waitFor(ctx, t, seq) // mid-stream: SIGTERM ends it as SHUTTING_DOWN, SIGKILL cuts the connection
		s.stop(how)
		s.start()
		seq = tb.play(ctx, t, 3) // maybe before the watcher is back: it reads them from the store
	}
	closed, err := host.CloseTable(as(ctx, tb.opened.GetOwner().GetCapability()),
		&mazzierev1.CloseTableRequest{TableId: tb.opened.GetTableId()})
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(ctx, t, closed.GetSeq())
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.done {
		w.moved.Wait()
	}
	if w.err != nil {
		t.Fatalf("the watch ended with %v", w.err)
	}
	var seqs, want []int64
	for _, update := range w.updates {
		seqs = append(seqs, update.GetSeq())
	}
	for n := range closed.GetSeq() + 1 {
		want = append(want, n)
	}
	if !slices.Equal(seqs, want) || closed.GetSeq() != seq+1 {
		t.Errorf("delivered %v, want %v (played to %d)", seqs, want, seq)
	}
	if !w.updates[0].GetSnapshot() || !w.updates[len(w.updates)-1].GetClosed() {
		t.Errorf("the first update is not the snapshot, or the last not the closing one")
	}
	if !slices.Contains(w.retries, "Unavailable/SHUTTING_DOWN") || len(w.retries) < 2 {
		t.Errorf("retries %v: want SHUTTING_DOWN, then the cut connection", w.retries)
	}
	t.Logf("delivered %v; retries %v", seqs, w.retries)
}

func TestWatchReturnsTheServersRefusal(t *testing.T) {
	s := newServer(t)
	s.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, conn, err := Dial(s.target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := mazzierev1.NewHostServiceClient(conn)
	tb := openTable(ctx, t, host)
	deliver := func(*mazzierev1.WatchResponse) error { return nil }
	for _, c := range []struct {
		tableID, capability string
		code                codes.Code
		reason              string
	}{
		{tb.opened.GetTableId(), "not-a-capability", codes.PermissionDenied, "CAPABILITY_INVALID"},
		{"t_nosuchtable", tb.opened.GetSpectators().GetCapability(), codes.NotFound, "TABLE_NOT_FOUND"},
	} {
		err := Watch(ctx, host, c.tableID, c.capability, WatchOptions{}, deliver)
		if code, info := ErrorInfo(err); code != c.code || info.GetReason() != c.reason {
			t.Errorf("watching %s: %v, want %v %s", c.tableID, err, c.code, c.reason)
		}
	}
}
