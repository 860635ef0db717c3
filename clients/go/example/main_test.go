package main

import (
	"context"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	mazziere "github.com/mazziere/mazziere/clients/go"
	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// These tests play against a real server at $MAZZIERE_TARGET (tests/clients starts one); without it they skip.
func connect(t *testing.T) (mazzierev1.TableServiceClient, context.Context) {
	t.Helper()
	if os.Getenv("MAZZIERE_TARGET") == "" {
		t.Skip("MAZZIERE_TARGET is not set")
	}
	client, conn, err := mazziere.Dial(mazziere.Target())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return client, ctx
}

func TestPlayHand(t *testing.T) {
	client, ctx := connect(t)
	var out strings.Builder
	table, events, err := PlayHand(ctx, client, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.GetKind())
	}
	for _, kind := range []string{"DEALT", "STAKED", "STOOD", "HAND_OVER"} {
		if !slices.Contains(kinds, kind) {
			t.Errorf("no %s among %v", kind, kinds)
		}
	}
	if table.Seq < 4 || len(table.Keys) != 2 {
		t.Errorf("seq %d, %d keys", table.Seq, len(table.Keys))
	}
}

func TestStaleSequenceIsAborted(t *testing.T) {
	client, ctx := connect(t)
	table, _, err := PlayHand(ctx, client, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	seat := table.ToAct[0]
	_, err = client.Act(ctx, &mazzierev1.ActRequest{
		TableId: table.ID, State: table.State, ExpectedSeq: table.Seq - 1,
		Action: &mazzierev1.Action{Seat: seat, Kind: "DEAL"}, SeatKey: table.Keys[seat],
	})
	code, info := mazziere.ErrorInfo(err)
	if code != codes.Aborted || info.GetReason() != "STALE_SEQUENCE" || info.GetDomain() != mazziere.ErrorDomain {
		t.Fatalf("got %v, %v; want ABORTED, STALE_SEQUENCE (%v)", code, info, err)
	}
	if got, want := info.GetMetadata()["actual_seq"], strconv.FormatInt(table.Seq, 10); got != want {
		t.Errorf("actual_seq %q, want %q", got, want)
	}
}

func TestWrongSeatKeyIsPermissionDenied(t *testing.T) {
	client, ctx := connect(t)
	created, err := client.CreateTable(ctx, &mazzierev1.CreateTableRequest{
		Game: "sette_e_mezzo", Seats: []*mazzierev1.Seat{{Chips: 50}, {Chips: 50}}})
	if err != nil {
		t.Fatal(err)
	}
	seat := created.GetToAct()[0]
	other := created.GetSeatKeys()[1-seat].GetKey()
	_, err = client.Act(ctx, &mazzierev1.ActRequest{
		TableId: created.GetTableId(), State: created.GetState(), ExpectedSeq: created.GetSeq(),
		Action: &mazzierev1.Action{Seat: seat, Kind: "DEAL"}, SeatKey: other,
	})
	if code, info := mazziere.ErrorInfo(err); code != codes.PermissionDenied || info.GetReason() != "SEAT_KEY_INVALID" {
		t.Fatalf("got %v, %v; want PERMISSION_DENIED, SEAT_KEY_INVALID (%v)", code, info, err)
	}
}

func TestAutoPlayAndAdvise(t *testing.T) {
	client, ctx := connect(t)
	table, _, err := PlayHand(ctx, client, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	seq := table.Seq
	var out strings.Builder
	events, advice, err := AutoPlayAndAdvise(ctx, client, table, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if table.Seq != seq+1 || len(events) == 0 {
		t.Fatalf("seq %d after %d, %d events", table.Seq, seq, len(events))
	}
	for _, e := range events {
		if !e.GetAuto() {
			t.Errorf("event %s is not marked auto", e.GetKind())
		}
	}
	if advice.GetSeat() != table.ToAct[0] || len(advice.GetActions()) == 0 {
		t.Fatalf("advice for seat %d with %d actions; seat %d is to act", advice.GetSeat(), len(advice.GetActions()), table.ToAct[0])
	}
}

func TestUnknownPolicyIsInvalidArgument(t *testing.T) {
	client, ctx := connect(t)
	created, err := client.CreateTable(ctx, &mazzierev1.CreateTableRequest{
		Game: "sette_e_mezzo", Seats: []*mazzierev1.Seat{{Chips: 50}, {Chips: 50}}})
	if err != nil {
		t.Fatal(err)
	}
	seat := created.GetToAct()[0]
	_, err = client.Act(ctx, &mazzierev1.ActRequest{
		TableId: created.GetTableId(), State: created.GetState(), AutoPlay: "genius",
		SeatKey: created.GetSeatKeys()[seat].GetKey(),
	})
	if code, info := mazziere.ErrorInfo(err); code != codes.InvalidArgument || info.GetReason() != "UNKNOWN_POLICY" {
		t.Fatalf("got %v, %v; want INVALID_ARGUMENT, UNKNOWN_POLICY (%v)", code, info, err)
	}
}
