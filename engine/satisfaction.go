package engine

import "strings"

// Satisfaction icons (spec section 9). SatisfactionNone means there is no score yet.
const (
	SatisfactionNone = 0 // no answers yet
	SatisfactionLow  = 1 // score below 7
	SatisfactionMid  = 2 // score 7 to under 9
	SatisfactionHigh = 3 // score 9 and up
)

// SatisfactionScore is a contact's satisfaction score, totalsum / (3 × totalcount) × 10
// (each answer is worth 1 to 3, so the score runs 0 to 10), and the icon that shows it.
// With no answers (totalcount ≤ 0) there is no score: 0 and SatisfactionNone.
//
// The icon is chosen by exact integer comparison, so a score of exactly 7 or 9 is never
// pushed below its threshold by floating-point rounding.
func SatisfactionScore(a AppraisalData) (score float64, icon int) {
	if a.TotalCount <= 0 {
		return 0, SatisfactionNone
	}
	num := int64(a.TotalSum) * 10
	den := int64(a.TotalCount) * 3
	score = float64(num) / float64(den)
	switch {
	case num < 7*den:
		icon = SatisfactionLow
	case num < 9*den:
		icon = SatisfactionMid
	default:
		icon = SatisfactionHigh
	}
	return score, icon
}

// RatingQuestion is the default satisfaction question, sent when a ticket of a queue
// with the nps flag and no question of its own is resolved (pt-BR, the product's
// language; the spec gives no wording).
const RatingQuestion = "Como você avalia o nosso atendimento? Responda 1 (insatisfeito), 2 (satisfeito) ou 3 (muito satisfeito)."

// RatingQuestions are the default question in each language of the product. The
// queue form offers the one of the admin's language (web locales carry the same
// texts); the server sends RatingQuestionDefault(TenantLanguage).
var RatingQuestions = map[string]string{
	"pt-BR": RatingQuestion,
	"en":    "How would you rate our service? Reply 1 (unsatisfied), 2 (satisfied) or 3 (very satisfied).",
	"es":    "¿Cómo evalúa nuestra atención? Responda 1 (insatisfecho), 2 (satisfecho) o 3 (muy satisfecho).",
}

// TenantLanguage is the language of a tenant's automatic texts. Tenants have no
// language setting (docs/dashboard.md, "Satisfaction survey"), so it is the product's.
const TenantLanguage = "pt-BR"

// RatingQuestionDefault is the default question in lang, pt-BR for any other.
func RatingQuestionDefault(lang string) string {
	if q, ok := RatingQuestions[lang]; ok {
		return q
	}
	return RatingQuestion
}

// QueueRatingQuestion is the question a queue's survey sends: its own, else the
// default of the tenant's language.
func QueueRatingQuestion(q Queue) string {
	if s := strings.TrimSpace(q.RatingQuestion); s != "" {
		return s
	}
	return RatingQuestionDefault(TenantLanguage)
}

// RatingQuestionMax is the longest rating question, in characters: it is one
// WhatsApp message a customer reads before answering.
const RatingQuestionMax = 500

// ParseRating reads a customer's answer to the rating question: "1", "2" or "3",
// with blanks around it and an optional trailing full stop. Anything else is not an
// answer.
func ParseRating(body string) (int, bool) {
	b := strings.TrimSpace(body)
	b = strings.TrimSpace(strings.TrimSuffix(b, "."))
	switch b {
	case "1":
		return 1, true
	case "2":
		return 2, true
	case "3":
		return 3, true
	}
	return 0, false
}
