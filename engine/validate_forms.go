package engine

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Form limits (spec sections 5 and 9 where given; Atende's choice where not).
const (
	NameMin          = 2  // names of connections, contacts, users, queues
	NameMax          = 50 //
	PasswordMin      = 5
	PasswordMax      = 50
	MaxPasswordBytes = 72 // bcrypt reads no further: a longer password is refused
	PhoneMin         = 8  // contact number digits
	PhoneMax         = 50
	TagNameMax       = 50   // tags: 1 to 50, a one-letter tag is fine
	ShortcutMax      = 50   // quick answer shortcut: 1 to 50
	LongTextMax      = 4096 // greeting/farewell/absence messages, quick answer text
	URLMax           = 2048
	ExtraNameMax     = 100 // contact extra info and sales opportunity names
)

// The validators below check one form of spec section 5 and return the cleaned input
// (surrounding spaces trimmed; e-mails lower-cased; numbers normalised; ids sorted and
// unique) with a nil error, or the input unchanged and an *Error with code
// ErrValidation whose Fields hold every failing field (JSON name → message).
// Passwords are never trimmed. Text is any Unicode; single-line fields refuse control
// characters, multi-line ones refuse controls other than tab and newlines.
// Uniqueness rules (contact number, queue colour, e-mail) need the store and are
// checked there.

// LoginInput is the body of POST /auth/login.
type LoginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// ValidateLogin: email and password required (no format check: a wrong address simply
// does not log in).
func ValidateLogin(in LoginInput) (LoginInput, error) {
	out := LoginInput{Email: strings.ToLower(strings.TrimSpace(in.Email)), Password: in.Password}
	f := fieldErrors{}
	f.text("email", out.Email, true, 0, 254)
	switch {
	case out.Password == "":
		f.add("password", MsgRequired)
	case len(out.Password) > MaxPasswordBytes:
		f.add("password", MsgTooLong)
	}
	return finish(in, out, f)
}

// ConnectionInput is the connection form (POST/PUT /whatsapp).
type ConnectionInput struct {
	Name            string `json:"name"`
	Number          string `json:"number"`
	IsDefault       bool   `json:"isDefault"`
	OutChannel      bool   `json:"outChannel"`
	DailyMax        int    `json:"dailyMax"`
	GreetingMessage string `json:"greetingMessage"`
	FarewellMessage string `json:"farewellMessage"`
	QueueIDs        []ID   `json:"queueIds"`
	// Channel is fixed at creation ("" means whatsapp); updates keep the stored one.
	Channel string `json:"channel"`
}

// IsChannel reports whether c names a channel Atende speaks.
func IsChannel(c string) bool {
	switch c {
	case ChannelWhatsApp, ChannelWABA, ChannelFacebook, ChannelInstagram, ChannelTelegram, ChannelSocket:
		return true
	}
	return false
}

// ValidateConnection: name required, 2 to 50. A connection that serves more than one
// queue needs a greeting message (the message that asks the customer to choose one).
// When that is the only failure the code is ErrWappGreetingRequired, which the web
// app already translates; otherwise it joins the other fields under ErrValidation.
func ValidateConnection(in ConnectionInput) (ConnectionInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	out.Number = strings.TrimSpace(in.Number)
	out.GreetingMessage = strings.TrimSpace(in.GreetingMessage)
	out.FarewellMessage = strings.TrimSpace(in.FarewellMessage)
	f := fieldErrors{}
	f.text("name", out.Name, true, NameMin, NameMax)
	f.text("number", out.Number, false, 0, PhoneMax)
	if out.Channel == "" {
		out.Channel = ChannelWhatsApp
	}
	if !IsChannel(out.Channel) {
		f.add("channel", MsgInvalidValue)
	}
	if out.DailyMax < 0 {
		f.add("dailyMax", MsgInvalidValue)
	}
	f.longText("greetingMessage", out.GreetingMessage, false, LongTextMax)
	f.longText("farewellMessage", out.FarewellMessage, false, LongTextMax)
	out.QueueIDs = checkIDs(f, "queueIds", in.QueueIDs)
	if len(out.QueueIDs) > 1 && out.GreetingMessage == "" {
		f.add("greetingMessage", MsgRequired)
		if len(f) == 1 {
			return in, &Error{Code: ErrWappGreetingRequired, Fields: f}
		}
	}
	return finish(in, out, f)
}

// ContactInput is the contact form (POST/PUT /contacts).
type ContactInput struct {
	Name      string      `json:"name"`
	Number    string      `json:"number"`
	Email     string      `json:"email"`
	ExtraInfo []ExtraInfo `json:"extraInfo"`
	SalesOpps []SalesOpp  `json:"salesOpps"`
}

// ValidateContact: name required 2 to 50; number optional (a Facebook or Instagram
// contact has none), else 8 to 50 digits after NormalizePhone ('Invalid number' when
// other characters remain); email optional, else valid. Extra info needs a name (up
// to 100) and a value of up to 4096; a sales opportunity needs a name and a closing
// status of nil, 0 or 1. Sub-fields are named like "extraInfo.0.name".
func ValidateContact(in ContactInput) (ContactInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	out.Email = strings.ToLower(strings.TrimSpace(in.Email))
	f := fieldErrors{}
	f.text("name", out.Name, true, NameMin, NameMax)
	if digits, ok := NormalizePhone(in.Number); !ok {
		f.add("number", MsgInvalidNumber)
	} else {
		out.Number = digits
		if digits != "" && len(digits) < PhoneMin {
			f.add("number", MsgTooShort)
		} else if len(digits) > PhoneMax {
			f.add("number", MsgTooLong)
		}
	}
	checkEmail(f, out.Email, false)
	if in.ExtraInfo != nil {
		out.ExtraInfo = make([]ExtraInfo, len(in.ExtraInfo))
		for i, x := range in.ExtraInfo {
			x.Name, x.Value = strings.TrimSpace(x.Name), strings.TrimSpace(x.Value)
			f.text(sub("extraInfo", i, "name"), x.Name, true, 1, ExtraNameMax)
			f.longText(sub("extraInfo", i, "value"), x.Value, false, LongTextMax)
			out.ExtraInfo[i] = x
		}
	}
	if in.SalesOpps != nil {
		out.SalesOpps = make([]SalesOpp, len(in.SalesOpps))
		for i, o := range in.SalesOpps {
			o.Name, o.Value, o.Stage = strings.TrimSpace(o.Name), strings.TrimSpace(o.Value), strings.TrimSpace(o.Stage)
			f.text(sub("salesOpps", i, "name"), o.Name, true, 1, ExtraNameMax)
			f.text(sub("salesOpps", i, "value"), o.Value, false, 0, ExtraNameMax)
			f.text(sub("salesOpps", i, "stage"), o.Stage, false, 0, ExtraNameMax)
			if o.ClosingStatus != nil && *o.ClosingStatus != OppLost && *o.ClosingStatus != OppWon {
				f.add(sub("salesOpps", i, "closingStatus"), MsgInvalidValue)
			}
			out.SalesOpps[i] = o
		}
	}
	return finish(in, out, f)
}

// UserInput is the user form (POST/PUT /users).
type UserInput struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	Password     string `json:"password"`
	Profile      string `json:"profile"`
	QueueIDs     []ID   `json:"queueIds"`
	ConnectionID ID     `json:"whatsappId"`
}

// ValidateUser: name required 2 to 50; email required and valid; password 5 to 50
// characters (and at most 72 bytes, bcrypt's limit), required when creating, and on
// update empty means "unchanged"; profile one of the six, required when creating and
// on update empty means "unchanged". Whether the caller may change profile and queues
// is a permission question (user-modal:editProfile, user-modal:editQueues).
func ValidateUser(in UserInput, creating bool) (UserInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	out.Email = strings.ToLower(strings.TrimSpace(in.Email))
	out.Profile = strings.TrimSpace(in.Profile)
	f := fieldErrors{}
	f.text("name", out.Name, true, NameMin, NameMax)
	checkEmail(f, out.Email, true)
	switch n := runeLen(in.Password); {
	case in.Password == "":
		if creating {
			f.add("password", MsgRequired)
		}
	case !multiLine(in.Password) || strings.ContainsAny(in.Password, "\r\n"):
		f.add("password", MsgInvalidValue)
	case n < PasswordMin:
		f.add("password", MsgTooShort)
	case n > PasswordMax || len(in.Password) > MaxPasswordBytes:
		f.add("password", MsgTooLong)
	}
	switch {
	case out.Profile == "":
		if creating {
			f.add("profile", MsgRequired)
		}
	case !IsProfile(out.Profile):
		f.add("profile", MsgInvalidValue)
	}
	out.QueueIDs = checkIDs(f, "queueIds", in.QueueIDs)
	f.id("whatsappId", in.ConnectionID, false)
	return finish(in, out, f)
}

// QueueInput is the queue form.
type QueueInput struct {
	Name               string `json:"name"`
	Color              string `json:"color"`
	GreetingMessage    string `json:"greetingMessage"`
	StartWork          string `json:"startWork"`
	EndWork            string `json:"endWork"`
	AbsenceMessage     string `json:"absenceMessage"`
	NPS                bool   `json:"nps"`
	EncouragingMessage string `json:"encouragingMessage"`
	RatingQuestion     string `json:"ratingQuestion"`
	URL                string `json:"url"`

	// GreetingRequired is set by the caller, not the client: true when the rule of spec
	// section 5 applies ("when the user has more than one queue a greeting message is
	// required"; the server applies it when the tenant will have more than one queue,
	// because the greeting is what lets a customer choose).
	GreetingRequired bool `json:"-"`
}

// ValidateQueue: name required 2 to 50; color required, #RRGGBB (lower-cased, so the
// uniqueness check sees #ABCDEF and #abcdef as one colour); greeting required when
// GreetingRequired; startWork and endWork empty or "HH:MM", both or neither; url
// empty or an http(s) address.
func ValidateQueue(in QueueInput) (QueueInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	out.Color = strings.ToLower(strings.TrimSpace(in.Color))
	out.GreetingMessage = strings.TrimSpace(in.GreetingMessage)
	out.StartWork = strings.TrimSpace(in.StartWork)
	out.EndWork = strings.TrimSpace(in.EndWork)
	out.AbsenceMessage = strings.TrimSpace(in.AbsenceMessage)
	out.EncouragingMessage = strings.TrimSpace(in.EncouragingMessage)
	out.RatingQuestion = strings.TrimSpace(in.RatingQuestion)
	out.URL = strings.TrimSpace(in.URL)
	f := fieldErrors{}
	f.text("name", out.Name, true, NameMin, NameMax)
	checkColor(f, out.Color, true)
	f.longText("greetingMessage", out.GreetingMessage, in.GreetingRequired, LongTextMax)
	f.longText("absenceMessage", out.AbsenceMessage, false, LongTextMax)
	f.longText("encouragingMessage", out.EncouragingMessage, false, LongTextMax)
	checkRatingQuestion(f, out.RatingQuestion)
	for field, v := range map[string]string{"startWork": out.StartWork, "endWork": out.EndWork} {
		if v != "" && !isHHMM(v) {
			f.add(field, MsgInvalidTime)
		}
	}
	if (out.StartWork == "") != (out.EndWork == "") {
		if out.StartWork == "" {
			f.add("startWork", MsgRequired)
		} else {
			f.add("endWork", MsgRequired)
		}
	}
	if out.URL != "" && !isWebURL(out.URL) {
		f.add("url", MsgInvalidValue)
	}
	return finish(in, out, f)
}

// checkRatingQuestion: optional (empty sends the default), up to RatingQuestionMax
// characters, and it must show the three answers the survey reads (the digits 1, 2
// and 3, engine.ParseRating): a question without them gets no answer it can count.
func checkRatingQuestion(f fieldErrors, q string) {
	f.longText("ratingQuestion", q, false, RatingQuestionMax)
	if q != "" && !(strings.ContainsRune(q, '1') && strings.ContainsRune(q, '2') && strings.ContainsRune(q, '3')) {
		f.add("ratingQuestion", MsgInvalidValue)
	}
}

// TagInput is the tag form (POST /tags, and the tags page).
type TagInput struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// ValidateTag: name required, 1 to 50; color optional, else #RRGGBB (lower-cased).
func ValidateTag(in TagInput) (TagInput, error) {
	out := TagInput{Name: strings.TrimSpace(in.Name), Color: strings.ToLower(strings.TrimSpace(in.Color))}
	f := fieldErrors{}
	f.text("name", out.Name, true, 1, TagNameMax)
	checkColor(f, out.Color, false)
	return finish(in, out, f)
}

// QuickAnswerInput is the quick answer form.
type QuickAnswerInput struct {
	Shortcut string `json:"shortcut"`
	Message  string `json:"message"`
}

// ValidateQuickAnswer: shortcut required, 1 to 50, single line; one leading '/' is
// dropped (the composer's trigger is not part of the shortcut). Message required, up
// to 4096 characters, multi-line.
func ValidateQuickAnswer(in QuickAnswerInput) (QuickAnswerInput, error) {
	out := QuickAnswerInput{Message: strings.TrimSpace(in.Message)}
	out.Shortcut = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(in.Shortcut), "/"))
	f := fieldErrors{}
	f.text("shortcut", out.Shortcut, true, 1, ShortcutMax)
	f.longText("message", out.Message, true, LongTextMax)
	return finish(in, out, f)
}

// SettingInput is one setting change (PUT /settings/{key}).
type SettingInput struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Setting values.
const (
	SettingEnabled  = "enabled"
	SettingDisabled = "disabled"
)

var settingKeys = map[string]bool{SettingSideMenu: true, SettingUserCreation: true, SettingAcceptCalls: true, SettingTimeZone: true}

// ValidateSetting: the key must be known (else ErrNoSettingFound, as for a missing
// row); timeZone takes an IANA zone name (ValidZoneName), every other key "enabled"
// or "disabled".
func ValidateSetting(in SettingInput) (SettingInput, error) {
	out := SettingInput{Key: strings.TrimSpace(in.Key), Value: strings.TrimSpace(in.Value)}
	if !settingKeys[out.Key] {
		return in, E(ErrNoSettingFound)
	}
	f := fieldErrors{}
	switch {
	case out.Value == "":
		f.add("value", MsgRequired)
	case out.Key == SettingTimeZone:
		if !ValidZoneName(out.Value) {
			f.add("value", MsgInvalidValue)
		}
	case out.Value != SettingEnabled && out.Value != SettingDisabled:
		f.add("value", MsgInvalidValue)
	}
	return finish(in, out, f)
}

// ValidZoneName reports whether name is an IANA zone of Go's zone database
// ("America/Sao_Paulo", "Europe/Lisbon", "UTC"). "Local" (the server's own zone,
// which differs between nodes) and names that are not plain zone paths are refused.
func ValidZoneName(name string) bool {
	if name == "" || name == "Local" || len(name) > 64 || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/_+-", r)) {
			return false
		}
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// finish returns out when nothing failed, else in and the validation error.
func finish[T any](in, out T, f fieldErrors) (T, error) {
	if err := f.err(); err != nil {
		return in, err
	}
	return out, nil
}

func checkEmail(f fieldErrors, v string, required bool) {
	switch {
	case v == "":
		if required {
			f.add("email", MsgRequired)
		}
	case !ValidEmail(v):
		f.add("email", MsgInvalidEmail)
	}
}

func checkColor(f fieldErrors, v string, required bool) {
	switch {
	case v == "":
		if required {
			f.add("color", MsgRequired)
		}
	case !isHexColor(v):
		f.add("color", MsgInvalidColor)
	}
}

// checkIDs refuses non-positive ids and returns the list sorted and unique.
func checkIDs(f fieldErrors, field string, ids []ID) []ID {
	for _, id := range ids {
		if id <= 0 {
			f.add(field, MsgInvalidValue)
			break
		}
	}
	return NormalizeIDs(ids)
}

func isWebURL(s string) bool {
	if len(s) > URLMax || !singleLine(s) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func sub(list string, i int, field string) string {
	return list + "." + strconv.Itoa(i) + "." + field
}
