// Command example creates a Sette e mezzo table and plays one hand: the bank deals, the player stakes and
// stands, the bank plays. Then the table plays the bank's next deal itself (auto-play, as a host's timer would)
// and the player asks for its odds (Advise). Against a server at $MAZZIERE_TARGET (default localhost:50051):
// go run ./example
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"time"

	mazziere "github.com/mazziere/mazziere/clients/go"
	mazzierev1 "github.com/mazziere/mazziere/clients/go/gen/mazziere/v1"
)

// Table is what a host keeps of a table: the latest state token, its sequence number and every seat's key.
type Table struct {
	ID    string
	State []byte
	Seq   int64
	Keys  map[int32]string
	ToAct []int32
}

func describe(e *mazzierev1.Event) string {
	parts := []string{e.GetKind()}
	if e.GetAuto() {
		parts[0] += " (auto)"
	}
	if e.Seat != nil {
		parts = append(parts, fmt.Sprintf("seat %d", e.GetSeat()))
	}
	for _, c := range e.GetCards() {
		if c.GetCard() == "" {
			parts = append(parts, "hidden")
		} else {
			parts = append(parts, c.GetCard())
		}
	}
	if e.GetAmount() != 0 {
		parts = append(parts, fmt.Sprintf("amount %d", e.GetAmount()))
	}
	return strings.Join(parts, " ")
}

func describeAll(events []*mazzierev1.Event) string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = describe(e)
	}
	return strings.Join(out, ", ")
}

// choose is the example's move: the bank deals, a player stakes 10 (within the allowed range), then everyone
// stands.
func choose(legal []*mazzierev1.LegalAction) (string, int64, error) {
	byKind := map[string]*mazzierev1.LegalAction{}
	for _, a := range legal {
		byKind[a.GetKind()] = a
	}
	if _, ok := byKind["DEAL"]; ok {
		return "DEAL", 0, nil
	}
	if stake, ok := byKind["STAKE"]; ok {
		return "STAKE", min(max(10, stake.GetMinAmount()), stake.GetMaxAmount()), nil
	}
	if _, ok := byKind["STAND"]; ok {
		return "STAND", 0, nil
	}
	return "", 0, fmt.Errorf("no move to make among %v", legal)
}

// PlayHand creates a table, plays one hand, and returns the table after it and every event the acting seats saw.
func PlayHand(ctx context.Context, client mazzierev1.TableServiceClient, out io.Writer) (*Table, []*mazzierev1.Event, error) {
	created, err := client.CreateTable(ctx, &mazzierev1.CreateTableRequest{
		Game:  "sette_e_mezzo",
		Seats: []*mazzierev1.Seat{{Name: "Anna", Chips: 100}, {Name: "Bruno", Chips: 100}},
	})
	if err != nil {
		return nil, nil, err
	}
	table := &Table{ID: created.GetTableId(), State: created.GetState(), Seq: created.GetSeq(),
		Keys: map[int32]string{}, ToAct: created.GetToAct()}
	for _, k := range created.GetSeatKeys() {
		table.Keys[k.GetSeat()] = k.GetKey()
	}
	fmt.Fprintf(out, "table %s: %s\n", table.ID, describeAll(created.GetUpdates()[0].GetEvents()))

	var events []*mazzierev1.Event
	handOver := func() bool {
		return slices.ContainsFunc(events, func(e *mazzierev1.Event) bool { return e.GetKind() == "HAND_OVER" })
	}
	for moves := 0; moves < 20 && !handOver(); moves++ {
		seat := table.ToAct[0]
		// The acting seat's legal actions: a GetView for that seat, with its key.
		view, err := client.GetView(ctx, &mazzierev1.GetViewRequest{
			TableId: table.ID, State: table.State, Seat: &seat, SeatKey: table.Keys[seat]})
		if err != nil {
			return nil, nil, err
		}
		kind, amount, err := choose(view.GetUpdate().GetLegalActions())
		if err != nil {
			return nil, nil, err
		}
		answer, err := client.Act(ctx, &mazzierev1.ActRequest{
			TableId:     table.ID,
			State:       table.State,
			ExpectedSeq: table.Seq,
			Action:      &mazzierev1.Action{Seat: seat, Kind: kind, Amount: amount},
			SeatKey:     table.Keys[seat],
		})
		if err != nil {
			return nil, nil, err
		}
		table.State, table.Seq, table.ToAct = answer.GetState(), answer.GetSeq(), answer.GetToAct()
		mine := answer.GetUpdates()[0].GetEvents()
		events = append(events, mine...)
		line := fmt.Sprintf("seat %d %s", seat, kind)
		if amount != 0 {
			line += fmt.Sprintf(" %d", amount)
		}
		line += fmt.Sprintf(" -> seq %d: %s", answer.GetSeq(), describeAll(mine))
		for _, t := range answer.GetSettlement() {
			line += fmt.Sprintf("; paid %d->%d %d (%s)", t.GetPayer(), t.GetPayee(), t.GetAmount(), t.GetReason())
		}
		fmt.Fprintln(out, line)
	}
	return table, events, nil
}

// AutoPlayAndAdvise lets the table play for the seat to act with the "cautious" policy (what a host does when a
// player's time is up; the seat's key is needed as for any move), then asks the next seat to act for the odds of
// each of its actions. It returns the events of the auto-played move and the advice.
func AutoPlayAndAdvise(ctx context.Context, client mazzierev1.TableServiceClient, table *Table, out io.Writer) ([]*mazzierev1.Event, *mazzierev1.AdviseResponse, error) {
	seat := table.ToAct[0]
	answer, err := client.Act(ctx, &mazzierev1.ActRequest{
		TableId: table.ID, State: table.State, ExpectedSeq: table.Seq, AutoPlay: "cautious", SeatKey: table.Keys[seat],
	})
	if err != nil {
		return nil, nil, err
	}
	table.State, table.Seq, table.ToAct = answer.GetState(), answer.GetSeq(), answer.GetToAct()
	events := answer.GetUpdates()[0].GetEvents()
	fmt.Fprintf(out, "seat %d played by the table: %s -> seq %d: %s\n", seat, answer.GetAction().GetKind(), answer.GetSeq(),
		describeAll(events))
	next := table.ToAct[0]
	advice, err := client.Advise(ctx, &mazzierev1.AdviseRequest{
		TableId: table.ID, State: table.State, Seat: next, SeatKey: table.Keys[next]})
	if err != nil {
		return nil, nil, err
	}
	for _, a := range advice.GetActions() {
		move := a.GetAction().GetKind()
		if a.GetAction().GetAmount() != 0 {
			move += fmt.Sprintf(" %d", a.GetAction().GetAmount())
		}
		fmt.Fprintf(out, "advice for seat %d: %s: expected %.2f (win %.2f, push %.2f, lose %.2f)\n", next, move,
			a.GetExpectedValue(), a.GetWin(), a.GetPush(), a.GetLose())
	}
	return events, advice, nil
}

func main() {
	client, conn, err := mazziere.Dial(mazziere.Target())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	table, _, err := PlayHand(ctx, client, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := AutoPlayAndAdvise(ctx, client, table, os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Acting on an old sequence number is refused with ABORTED, reason STALE_SEQUENCE.
	seat := table.ToAct[0]
	_, err = client.Act(ctx, &mazzierev1.ActRequest{
		TableId: table.ID, State: table.State, ExpectedSeq: table.Seq - 1,
		Action: &mazzierev1.Action{Seat: seat, Kind: "DEAL"}, SeatKey: table.Keys[seat],
	})
	code, info := mazziere.ErrorInfo(err)
	fmt.Printf("refused: %s, reason %s, metadata %v\n", code, info.GetReason(), info.GetMetadata())
}
