package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestParseRating(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {" 2 ", 2, true}, {"3.", 3, true}, {"\n3\n", 3, true},
		{"", 0, false}, {"0", 0, false}, {"4", 0, false}, {"-1", 0, false}, {"12", 0, false},
		{"1 2", 0, false}, {"um", 0, false}, {"３", 0, false}, {"3..", 0, false}, {"1\x00", 0, false},
		{"2; DROP TABLE contacts", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseRating(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseRating(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseRating(f *testing.F) {
	for _, s := range []string{"1", " 2.", "3", "4", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseRating(s)
		if ok != (n >= 1 && n <= 3) {
			t.Fatalf("ParseRating(%q) = %d, %v", s, n, ok)
		}
	})
}

// TestRatingOncePerTicket walks the survey: a closed ticket takes the answer to its
// question once; a second answer, an answer never asked for, an answer out of range
// and a redelivered answer change nothing or are refused (so the connection opens a
// new ticket with them).
func TestRatingOncePerTicket(t *testing.T) {
	closed, _ := build(t, baseOpen, Resolve{})
	answer := ReceiveMessage{MessageID: 200, ProviderID: "wamid.A", Body: "3"}

	if _, err := DecideTicket(closed, answer, t0); CodeOf(err) != ErrInvalidTransition {
		t.Fatalf("answer without a question: err %v, want ERR_INVALID_TRANSITION", err)
	}
	open, _ := build(t, baseOpen)
	if _, err := DecideTicket(open, AskRating{MessageID: 199, Body: RatingQuestion}, t0); CodeOf(err) != ErrInvalidTransition {
		t.Fatalf("question on an open ticket: err %v", err)
	}

	asked, evs := build(t, baseOpen, Resolve{}, AskRating{MessageID: 199, Body: RatingQuestion})
	if !asked.RatingAsked || evs[len(evs)-1].Type() != EvTicketRatingAsked {
		t.Fatalf("ask: state %+v events %v", asked, evs)
	}
	if again, err := DecideTicket(asked, AskRating{MessageID: 198, Body: RatingQuestion}, t0); err != nil || len(again) != 0 {
		t.Fatalf("asking twice: %v %v", again, err)
	}
	for _, bad := range []ReceiveMessage{
		{MessageID: 201, ProviderID: "wamid.B", Body: "4"},
		{MessageID: 202, ProviderID: "wamid.C", Body: "obrigado!"},
		{MessageID: 203, ProviderID: "wamid.D", Body: "", MediaType: MediaImage, MediaURL: "/x.jpg"},
	} {
		if _, err := DecideTicket(asked, bad, t0); CodeOf(err) != ErrInvalidTransition {
			t.Errorf("answer %q: err %v, want ERR_INVALID_TRANSITION", bad.Body, err)
		}
	}

	evs, err := DecideTicket(asked, answer, t0)
	if err != nil || len(evs) != 2 {
		t.Fatalf("answer: %v %v", evs, err)
	}
	r, ok := evs[1].(TicketRated)
	if !ok || r.Score != 3 || r.ContactID != baseOpen.ContactID || r.QueueID != baseOpen.QueueID || r.UserID != baseOpen.UserID {
		t.Fatalf("rated event %+v", evs[1])
	}
	rated := FoldTicket(asked.Clone(), evs)
	if !rated.Rated || rated.RatingAsked || rated.UnreadMessages != 0 {
		t.Fatalf("rated state %+v", rated)
	}
	// The same answer redelivered (same provider id, even with a new message id).
	redelivered := answer
	redelivered.MessageID = 300
	if evs, err := DecideTicket(rated, redelivered, t0); err != nil || len(evs) != 0 {
		t.Fatalf("redelivered answer: %v %v", evs, err)
	}
	if _, err := DecideTicket(rated, ReceiveMessage{MessageID: 301, ProviderID: "wamid.E", Body: "1"}, t0); CodeOf(err) != ErrInvalidTransition {
		t.Fatalf("second answer: err %v", err)
	}
	if evs, err := DecideTicket(rated, AskRating{MessageID: 302, Body: RatingQuestion}, t0); err != nil || len(evs) != 0 {
		t.Fatalf("asking a rated ticket: %v %v", evs, err)
	}

	// Reopening withdraws an unanswered question.
	reopened, _ := build(t, baseOpen, Resolve{}, AskRating{MessageID: 199, Body: RatingQuestion}, Reopen{UserID: 7}, Resolve{})
	if _, err := DecideTicket(reopened, answer, t0); CodeOf(err) != ErrInvalidTransition {
		t.Fatalf("answer after reopen and resolve: err %v", err)
	}
}

func TestQueueRatingQuestion(t *testing.T) {
	if got := QueueRatingQuestion(Queue{NPS: true}); got != RatingQuestion {
		t.Errorf("no question of its own: %q, want the pt-BR default", got)
	}
	if got := QueueRatingQuestion(Queue{RatingQuestion: " Nota de 1 a 3? "}); got != "Nota de 1 a 3?" {
		t.Errorf("own question: %q", got)
	}
	for lang, q := range RatingQuestions {
		// Every default shows the three answers ParseRating reads, and passes the
		// queue form's own check.
		if _, err := ValidateQueue(QueueInput{Name: "Fila", Color: "#ffffff", RatingQuestion: q}); err != nil {
			t.Errorf("%s default refused by the form: %v", lang, err)
		}
		if RatingQuestionDefault(lang) != q {
			t.Errorf("RatingQuestionDefault(%q)", lang)
		}
	}
	if len(RatingQuestions) != 3 || RatingQuestionDefault("fr") != RatingQuestion || RatingQuestionDefault("") != RatingQuestion {
		t.Errorf("defaults %v: want pt-BR, en, es, and pt-BR for any other language", RatingQuestions)
	}
}

// TestRatingQuestionsMatchTheWebLocales: the default the queue form fills in (web
// locales, queues.form.ratingQuestionDefault) is the server's default of that language.
func TestRatingQuestionsMatchTheWebLocales(t *testing.T) {
	for lang, want := range RatingQuestions {
		b, err := os.ReadFile(filepath.Join("..", "web", "src", "i18n", "locales", lang, "queues.json"))
		if err != nil {
			t.Fatal(err)
		}
		var loc struct {
			Form struct {
				RatingQuestionDefault string `json:"ratingQuestionDefault"`
			} `json:"form"`
		}
		if err := json.Unmarshal(b, &loc); err != nil {
			t.Fatal(err)
		}
		if loc.Form.RatingQuestionDefault != want {
			t.Errorf("%s: web default %q, server default %q", lang, loc.Form.RatingQuestionDefault, want)
		}
	}
}
