package convo

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/coyote-cli/coyote/kernel/chat"
	"github.com/coyote-cli/coyote/kernel/models"
	"github.com/coyote-cli/coyote/sdk/provider"
)

// billed answers every request with text and the next usage (nil: none
// reported), and counts the requests.
type billed struct {
	usage []*provider.Usage
	calls int
}

func (b *billed) Chat(_ context.Context, _ *provider.ChatRequest, send func(*provider.ChatEvent) error) error {
	u := b.usage[b.calls]
	b.calls++
	if err := send(&provider.ChatEvent{Text: "ok"}); err != nil {
		return err
	}
	if u != nil {
		return send(&provider.ChatEvent{Usage: u})
	}
	return nil
}

func turn(t *testing.T, st *State, p chat.Chatter, m models.Model) error {
	t.Helper()
	parts := []provider.Part{{Text: strings.Repeat("x", 4000)}} // about 1000 tokens
	req, added := st.Request(parts, true)
	reply, added, err := st.Turn(context.Background(), p, m, req, added, func() chat.Display { return chat.Plain(io.Discard) })
	return st.Finish(context.Background(), p, parts, added, reply, err)
}

// $2 and $8 a million tokens.
var priced = models.Model{Name: "one", InputPrice: 2, OutputPrice: 8}

func TestEachTurnRecordsItsUsageAndCost(t *testing.T) {
	st := newState(t, twoClients)
	sess, _ := st.OpenSession("s")
	p := &billed{usage: []*provider.Usage{
		{InputTokens: 1000, OutputTokens: 500, CachedTokens: 200, ReasoningTokens: 100},
		{InputTokens: 3000, OutputTokens: 0},
	}}
	for range 2 {
		if err := turn(t, st, p, priced); err != nil {
			t.Fatal(err)
		}
	}
	got := sess.Usage()
	if len(got) != 2 || got[0].InputTokens != 1000 || got[0].CachedTokens != 200 || got[0].ReasoningTokens != 100 || got[0].ContextTokens != 1500 {
		t.Fatalf("recorded %+v", got)
	}
	if got[0].Cost == nil || *got[0].Cost != (1000*2+500*8)/1e6 || got[1].Cost == nil || *got[1].Cost != 3000*2/1e6 {
		t.Fatalf("costs %v %v", got[0].Cost, got[1].Cost)
	}
	sp, _ := st.SessionSpend()
	if sp.CostText() != "$0.0120" || sp.TokensText() != "4000 in (200 cached), 500 out (100 reasoning)" {
		t.Fatalf("session spend %q, %q", sp.CostText(), sp.TokensText())
	}
	if run := st.RunSpend(); run.Calls != 2 || run.Cost != sp.Cost {
		t.Fatalf("run spend %+v", run)
	}
}

// A compression summary (and a title) is a call the turn made: its
// tokens and price are in the turn's record and in the run's spend.
func TestCallsMadeForTheSessionCountInTheTurn(t *testing.T) {
	st := newState(t, twoClients+"compression_threshold: 100\n")
	sess, _ := st.OpenSession("s")
	p := &billed{usage: []*provider.Usage{
		{InputTokens: 1000, OutputTokens: 500}, // the turn
		{InputTokens: 2000, OutputTokens: 100}, // its compression
	}}
	if err := turn(t, st, p, priced); err != nil {
		t.Fatal(err)
	}
	if p.calls != 2 {
		t.Fatalf("%d calls, want the turn and its compression", p.calls)
	}
	got := sess.Usage()
	if len(got) != 1 || got[0].InputTokens != 3000 || got[0].OutputTokens != 600 || got[0].ContextTokens != 1500 {
		t.Fatalf("recorded %+v, want both calls' tokens and the turn's context", got)
	}
	want := (3000*2 + 600*8) / 1e6
	if got[0].Cost == nil || *got[0].Cost != want {
		t.Fatalf("cost %v, want %v", got[0].Cost, want)
	}
	if run := st.RunSpend(); run.Calls != 2 || run.Cost != want || run.ContextTokens != 1500 {
		t.Fatalf("run spend %+v", run)
	}
}

func TestUnknownPricesAreUnknownNeverZero(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model []models.Model
		usage []*provider.Usage
		want  string
	}{
		{"no price", []models.Model{{Name: "free?"}}, []*provider.Usage{{InputTokens: 10, OutputTokens: 5}}, "unknown"},
		{"no usage reported", []models.Model{priced}, []*provider.Usage{nil}, "unknown"},
		{"one of two turns unpriced", []models.Model{priced, {Name: "local"}}, []*provider.Usage{{InputTokens: 1e6}, {InputTokens: 5}}, "$2.00 + unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newState(t, twoClients)
			st.OpenSession("s")
			p := &billed{usage: tc.usage}
			for _, m := range tc.model {
				if err := turn(t, st, p, m); err != nil {
					t.Fatal(err)
				}
			}
			sp, _ := st.SessionSpend()
			if got := sp.CostText(); got != tc.want {
				t.Fatalf("cost %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSpendingLimitsStopBeforeTheRequest(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		session       bool
		model         models.Model
		wantCalls     int // of three turns of ~1000 input tokens, $0.004 each
		wantErr       string
	}{
		{"session limit", "max_session_cost: 0.009\n", true, priced, 2, "the session has spent $0.00800 of max_session_cost $0.00900"},
		{"run limit without a session", "max_cost_per_run: 0.005\n", false, priced, 1, "this run has spent $0.00400 of max_cost_per_run $0.00500"},
		{"a session limit does not bind a run without a session", "max_session_cost: 0.001\n", false, priced, 3, ""},
		{"an unknown price cannot be checked", "max_cost_per_run: 0.001\n", false, models.Model{Name: "local"}, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newState(t, twoClients+tc.setting)
			var warned []string
			st.d.Warn = func(m string) { warned = append(warned, m) }
			if tc.session {
				st.OpenSession("s")
			}
			u := &provider.Usage{InputTokens: 2000}
			p := &billed{usage: []*provider.Usage{u, u, u}}
			var err error
			for range 3 {
				if err = turn(t, st, p, tc.model); err != nil {
					break
				}
			}
			if p.calls != tc.wantCalls {
				t.Fatalf("%d requests sent, want %d (err %v)", p.calls, tc.wantCalls, err)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !tc.model.HasPrice() && (len(warned) != 1 || !strings.Contains(warned[0], "price of local is unknown")) {
					t.Fatalf("warnings %q", warned)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.wantErr)
			}
			if tc.session && st.Session.Interrupted() {
				t.Fatal("a request that was never sent was checkpointed")
			}
		})
	}
}

func TestUSD(t *testing.T) {
	for c, want := range map[float64]string{0: "$0.00", 0.000045: "$0.0000450", 0.0125: "$0.0125", 0.5: "$0.500", 3.14159: "$3.14"} {
		if got := USD(c); got != want {
			t.Errorf("USD(%v) = %q, want %q", c, got, want)
		}
	}
}
