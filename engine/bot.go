package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Reception-menu bots (spec sections 1 and 3, "Bot level"; docs/bots.md). A tenant's
// bot levels form a tree of numbered menus: the levels without a parent are the first
// menu, the children of a "menu" level are the menu it opens. A customer of a pending
// ticket that has no queue and no attendant answers with a level's commandBot; the
// level's commandType says what happens:
//
//   - queue:   the ticket moves to QueueID; the bot ends (the queue's greeting, or its
//     absence message outside its hours, follows ShowMessage).
//   - user:    the ticket goes to attendant UserID (in QueueID when set); the bot ends.
//   - message: ShowMessage is sent and the same menu is shown again.
//   - menu:    ShowMessage heads the menu of the level's children (one level down).
//
// "0" goes back up one level in any menu below the first. Any other answer repeats
// the menu. A tenant without bot levels gets the connection's queues as its first
// (and only) menu, the numbered queue menu of before.

// Command types of a bot level.
const (
	BotQueue   = "queue"
	BotUser    = "user"
	BotMessage = "message"
	BotMenu    = "menu"
)

// BotBack is the answer that goes back one level.
const BotBack = "0"

// Texts the bot writes (pt-BR, like the other automatic texts of the server).
const (
	BotInvalidOption = "Opção inválida. Por favor, responda com o número de uma das opções:"
	BotBackOption    = "Voltar"
)

// Bot limits.
const (
	BotCommandMax     = 3   // commandBot: 1 to 3 digits, "1" to "999"
	BotDescriptionMax = 100 // descriptionBot: the option's line in the menu
	BotMaxDepth       = 10  // levels below the first menu: deeper trees are refused
)

// BotLevel is one option of a menu.
type BotLevel struct {
	ID             ID        `json:"id"`
	CompanyID      ID        `json:"companyId,omitempty"`
	ParentID       ID        `json:"parentId"`   // 0: an option of the first menu
	CommandBot     string    `json:"commandBot"` // the number the customer answers
	DescriptionBot string    `json:"descriptionBot"`
	CommandType    string    `json:"commandType"`
	ShowMessage    string    `json:"showMessage"`
	UserID         ID        `json:"userId"`
	QueueID        ID        `json:"queueId"`
	CreatedAt      time.Time `json:"createdAt,omitzero"`
	UpdatedAt      time.Time `json:"updatedAt,omitzero"`
}

// BotLevelInput is the bot level form (POST /bots, PUT /bots/{id}).
type BotLevelInput struct {
	ParentID       ID     `json:"parentId"`
	CommandBot     string `json:"commandBot"`
	DescriptionBot string `json:"descriptionBot"`
	CommandType    string `json:"commandType"`
	ShowMessage    string `json:"showMessage"`
	UserID         ID     `json:"userId"`
	QueueID        ID     `json:"queueId"`
}

// ValidateBotLevel: commandBot required, a number 1 to 999 (leading zeros dropped);
// descriptionBot required 1 to 100 characters; commandType one of queue, user,
// message, menu; queue needs queueId; user needs userId (queueId optional); message
// needs showMessage; showMessage up to LongTextMax. Ids the type does not use are
// cleared. That the parent is a menu level of the tenant, that the queue and user
// exist and that commandBot is unique among its siblings needs the store.
func ValidateBotLevel(in BotLevelInput) (BotLevelInput, error) {
	out := in
	out.CommandBot = strings.TrimSpace(in.CommandBot)
	out.DescriptionBot = strings.TrimSpace(in.DescriptionBot)
	out.CommandType = strings.TrimSpace(in.CommandType)
	out.ShowMessage = strings.TrimSpace(in.ShowMessage)
	f := fieldErrors{}
	f.id("parentId", in.ParentID, false)
	switch n, ok := ParseMenuAnswer(out.CommandBot); {
	case out.CommandBot == "":
		f.add("commandBot", MsgRequired)
	case !ok || n < 1:
		f.add("commandBot", MsgInvalidNumber)
	default:
		out.CommandBot = strconv.Itoa(n)
	}
	f.text("descriptionBot", out.DescriptionBot, true, 1, BotDescriptionMax)
	f.longText("showMessage", out.ShowMessage, out.CommandType == BotMessage, LongTextMax)
	switch out.CommandType {
	case BotQueue:
		f.id("queueId", in.QueueID, true)
		out.UserID = 0
	case BotUser:
		f.id("userId", in.UserID, true)
		f.id("queueId", in.QueueID, false)
	case BotMessage, BotMenu:
		out.UserID, out.QueueID = 0, 0
	case "":
		f.add("commandType", MsgRequired)
	default:
		f.add("commandType", MsgInvalidValue)
	}
	return finish(in, out, f)
}

// ParseMenuAnswer reads a customer's answer to a menu: a number of 1 to 3 digits,
// surrounding blanks and a trailing period or parenthesis allowed ("2", " 2. ", "2)").
// Signs, other text, and longer numbers are not answers.
func ParseMenuAnswer(body string) (int, bool) {
	s := strings.TrimSpace(body)
	s = strings.TrimSpace(strings.TrimRight(s, ".)"))
	if s == "" || len(s) > BotCommandMax {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// BotStore keeps a tenant's bot levels.
type BotStore interface {
	// List answers every level of the tenant, ordered by parent, then commandBot as a
	// number, then id.
	List(ctx context.Context, companyID ID) ([]BotLevel, error)
	// Get answers ErrNoBotFound when id is not a level of companyID.
	Get(ctx context.Context, companyID, id ID) (BotLevel, error)
	Create(ctx context.Context, companyID ID, in BotLevelInput) (BotLevel, error)
	Update(ctx context.Context, companyID, id ID, in BotLevelInput) (BotLevel, error)
	// Delete removes the level and every level below it.
	Delete(ctx context.Context, companyID, id ID) error
	// Reorder renumbers the children of parentID 1..n in the order of ids, which must
	// be exactly those children; answers the renumbered levels.
	Reorder(ctx context.Context, companyID, parentID ID, ids []ID) ([]BotLevel, error)
}

// BotChildren are the options of the menu below parent (0: the first menu), by
// commandBot as a number then id.
func BotChildren(levels []BotLevel, parent ID) []BotLevel {
	var out []BotLevel
	for _, l := range levels {
		if l.ParentID == parent {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b BotLevel) int {
		x, _ := strconv.Atoi(a.CommandBot)
		y, _ := strconv.Atoi(b.CommandBot)
		if x != y {
			return x - y
		}
		return int(a.ID - b.ID)
	})
	return out
}

// QueueMenuLevels is the first menu of a tenant without bot levels: the connection's
// queues, numbered from 1 in their order, each a queue option.
func QueueMenuLevels(queues []Queue) []BotLevel {
	out := make([]BotLevel, 0, len(queues))
	for i, q := range queues {
		out = append(out, BotLevel{CommandBot: strconv.Itoa(i + 1), DescriptionBot: q.Name,
			CommandType: BotQueue, QueueID: q.ID})
	}
	return out
}

// BotMenuText is the menu of the options: "N - description" a line, and "0 - Voltar"
// below the first menu.
func BotMenuText(options []BotLevel, canGoBack bool) string {
	var b strings.Builder
	for i, o := range options {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(o.CommandBot)
		b.WriteString(" - ")
		b.WriteString(o.DescriptionBot)
	}
	if canGoBack {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(BotBack + " - " + BotBackOption)
	}
	return b.String()
}

// JoinTexts joins the non-blank texts with a blank line between them.
func JoinTexts(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}

// WithinHours reports whether now, read in loc, is within the queue's business hours
// [startWork, endWork). A queue without hours is always open. endWork before
// startWork spans midnight ("22:00" to "06:00"); equal bounds mean always open.
func WithinHours(q Queue, now time.Time, loc *time.Location) bool {
	start, okS := minuteOfDay(q.StartWork)
	end, okE := minuteOfDay(q.EndWork)
	if !okS || !okE || start == end {
		return true
	}
	if loc == nil {
		loc = time.UTC
	}
	t := now.In(loc)
	m := t.Hour()*60 + t.Minute()
	if start < end {
		return m >= start && m < end
	}
	return m >= start || m < end
}

func minuteOfDay(s string) (int, bool) {
	if !isHHMM(s) {
		return 0, false
	}
	return int(s[0]-'0')*600 + int(s[1]-'0')*60 + int(s[3]-'0')*10 + int(s[4]-'0'), true
}
