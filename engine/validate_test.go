package engine

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"
)

// checkValidation asserts a validator's outcome: with want nil the input is valid and
// cleaned must equal wantOut; else the error is code with exactly the fields want.
func checkValidation[T any](t *testing.T, out T, err error, code Code, want map[string]string, wantOut *T) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		if wantOut != nil && !reflect.DeepEqual(out, *wantOut) {
			t.Errorf("cleaned\n got %#v\nwant %#v", out, *wantOut)
		}
		return
	}
	if codeOf(t, err) != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	if !maps.Equal(fieldsOf(err), want) {
		t.Errorf("fields %v, want %v", fieldsOf(err), want)
	}
}

func TestValidateLogin(t *testing.T) {
	tests := []struct {
		name   string
		in     LoginInput
		fields map[string]string
		out    *LoginInput
	}{
		{"ok, email cleaned, password kept", LoginInput{" Ana@Example.COM ", " s3cret "}, nil,
			&LoginInput{"ana@example.com", " s3cret "}},
		{"empty", LoginInput{}, map[string]string{"email": MsgRequired, "password": MsgRequired}, nil},
		{"blank email", LoginInput{"   ", "x"}, map[string]string{"email": MsgRequired}, nil},
		{"any email shape is tried", LoginInput{"not-an-email", "x"}, nil, &LoginInput{"not-an-email", "x"}},
		{"password beyond bcrypt", LoginInput{"a@b.co", strings.Repeat("x", 73)}, map[string]string{"password": MsgTooLong}, nil},
		{"email with newline", LoginInput{"a@b.co\nBcc: x", "x"}, map[string]string{"email": MsgInvalidValue}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateLogin(tt.in)
			checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
		})
	}
}

func TestValidateConnection(t *testing.T) {
	tests := []struct {
		name   string
		in     ConnectionInput
		code   Code
		fields map[string]string
		out    *ConnectionInput
	}{
		{"ok", ConnectionInput{Name: "  Vendas  ", QueueIDs: []ID{3}}, "", nil,
			&ConnectionInput{Name: "Vendas", QueueIDs: []ID{3}, Channel: ChannelWhatsApp}},
		{"web chat", ConnectionInput{Name: "Site", Channel: ChannelSocket}, "", nil,
			&ConnectionInput{Name: "Site", QueueIDs: []ID{}, Channel: ChannelSocket}},
		{"unknown channel", ConnectionInput{Name: "Site", Channel: "sms"}, ErrValidation,
			map[string]string{"channel": MsgInvalidValue}, nil},
		{"two queues with greeting", ConnectionInput{Name: "Vendas", QueueIDs: []ID{4, 3, 4}, GreetingMessage: " Escolha: \n1 vendas\n2 suporte "}, "", nil,
			&ConnectionInput{Name: "Vendas", QueueIDs: []ID{3, 4}, GreetingMessage: "Escolha: \n1 vendas\n2 suporte", Channel: ChannelWhatsApp}},
		{"required", ConnectionInput{}, ErrValidation, map[string]string{"name": MsgRequired}, nil},
		{"too short", ConnectionInput{Name: "V"}, ErrValidation, map[string]string{"name": MsgTooShort}, nil},
		{"two characters", ConnectionInput{Name: "VV"}, "", nil, nil},
		{"fifty characters", ConnectionInput{Name: strings.Repeat("ç", 50)}, "", nil, nil},
		{"too long", ConnectionInput{Name: strings.Repeat("ç", 51)}, ErrValidation, map[string]string{"name": MsgTooLong}, nil},
		{"two queues without greeting", ConnectionInput{Name: "Vendas", QueueIDs: []ID{1, 2}}, ErrWappGreetingRequired,
			map[string]string{"greetingMessage": MsgRequired}, nil},
		{"greeting and name both missing", ConnectionInput{QueueIDs: []ID{1, 2}}, ErrValidation,
			map[string]string{"name": MsgRequired, "greetingMessage": MsgRequired}, nil},
		{"negative daily max and bad queue", ConnectionInput{Name: "Vendas", DailyMax: -1, QueueIDs: []ID{0}}, ErrValidation,
			map[string]string{"dailyMax": MsgInvalidValue, "queueIds": MsgInvalidValue}, nil},
		{"greeting with a control character", ConnectionInput{Name: "Vendas", GreetingMessage: "oi\x07"}, ErrValidation,
			map[string]string{"greetingMessage": MsgInvalidValue}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateConnection(tt.in)
			checkValidation(t, out, err, tt.code, tt.fields, tt.out)
		})
	}
}

func TestValidateContact(t *testing.T) {
	won := OppWon
	bad := 2
	tests := []struct {
		name   string
		in     ContactInput
		fields map[string]string
		out    *ContactInput
	}{
		{"ok and normalised", ContactInput{Name: " José da Silva ", Number: " +55 (65) 99999-0000 ", Email: " Jose@Exemplo.com.br "}, nil,
			&ContactInput{Name: "José da Silva", Number: "5565999990000", Email: "jose@exemplo.com.br"}},
		{"no number, no email", ContactInput{Name: "Página"}, nil, &ContactInput{Name: "Página"}},
		{"empty", ContactInput{}, map[string]string{"name": MsgRequired}, nil},
		{"short name", ContactInput{Name: "J"}, map[string]string{"name": MsgTooShort}, nil},
		{"long name", ContactInput{Name: strings.Repeat("a", 51)}, map[string]string{"name": MsgTooLong}, nil},
		{"short number", ContactInput{Name: "Jo", Number: "1234-567"}, map[string]string{"number": MsgTooShort}, nil},
		{"eight digits", ContactInput{Name: "Jo", Number: "1234-5678"}, nil, &ContactInput{Name: "Jo", Number: "12345678"}},
		{"fifty digits", ContactInput{Name: "Jo", Number: strings.Repeat("9", 50)}, nil, nil},
		{"long number", ContactInput{Name: "Jo", Number: strings.Repeat("9", 51)}, map[string]string{"number": MsgTooLong}, nil},
		{"letters in number", ContactInput{Name: "Jo", Number: "5565abc99990000"}, map[string]string{"number": MsgInvalidNumber}, nil},
		{"plus in the middle", ContactInput{Name: "Jo", Number: "55+6599990000"}, map[string]string{"number": MsgInvalidNumber}, nil},
		{"dots are not stripped", ContactInput{Name: "Jo", Number: "65.9999.0000"}, map[string]string{"number": MsgInvalidNumber}, nil},
		{"only punctuation", ContactInput{Name: "Jo", Number: "+()"}, map[string]string{"number": MsgInvalidNumber}, nil},
		{"arabic-indic digits", ContactInput{Name: "Jo", Number: "٠١٢٣٤٥٦٧٨٩"}, map[string]string{"number": MsgInvalidNumber}, nil},
		{"bad email", ContactInput{Name: "Jo", Email: "jo@"}, map[string]string{"email": MsgInvalidEmail}, nil},
		{"all at once", ContactInput{Name: " ", Number: "x", Email: "@"}, map[string]string{
			"name": MsgRequired, "number": MsgInvalidNumber, "email": MsgInvalidEmail}, nil},
		{"extra info and opportunities", ContactInput{Name: "Jo",
			ExtraInfo: []ExtraInfo{{Name: " location ", Value: " -15.6,-56.1 "}},
			SalesOpps: []SalesOpp{{Name: "Plano", Value: "100", ClosingStatus: &won}}}, nil,
			&ContactInput{Name: "Jo",
				ExtraInfo: []ExtraInfo{{Name: "location", Value: "-15.6,-56.1"}},
				SalesOpps: []SalesOpp{{Name: "Plano", Value: "100", ClosingStatus: &won}}}},
		{"bad extra info and opportunity", ContactInput{Name: "Jo",
			ExtraInfo: []ExtraInfo{{Name: "ok", Value: "v"}, {Name: "", Value: "v"}},
			SalesOpps: []SalesOpp{{Name: "", ClosingStatus: &bad}}},
			map[string]string{"extraInfo.1.name": MsgRequired, "salesOpps.0.name": MsgRequired, "salesOpps.0.closingStatus": MsgInvalidValue}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateContact(tt.in)
			checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
		})
	}
}

func TestValidateUser(t *testing.T) {
	valid := UserInput{Name: "Ana", Email: "ana@example.com", Password: "12345", Profile: ProfileUser}
	with := func(f func(*UserInput)) UserInput {
		u := valid
		f(&u)
		return u
	}
	tests := []struct {
		name     string
		in       UserInput
		creating bool
		fields   map[string]string
		out      *UserInput
	}{
		{"create ok", with(func(u *UserInput) { u.Name, u.Email, u.QueueIDs = " Ana ", " ANA@Example.com", []ID{2, 1, 2} }), true, nil,
			&UserInput{Name: "Ana", Email: "ana@example.com", Password: "12345", Profile: ProfileUser, QueueIDs: []ID{1, 2}}},
		{"create empty", UserInput{}, true, map[string]string{
			"name": MsgRequired, "email": MsgRequired, "password": MsgRequired, "profile": MsgRequired}, nil},
		{"update empty password and profile keep them", with(func(u *UserInput) { u.Password, u.Profile = "", "" }), false, nil, nil},
		{"update empty still needs name and email", UserInput{}, false, map[string]string{"name": MsgRequired, "email": MsgRequired}, nil},
		{"short password", with(func(u *UserInput) { u.Password = "1234" }), true, map[string]string{"password": MsgTooShort}, nil},
		{"short password on update", with(func(u *UserInput) { u.Password = "1234" }), false, map[string]string{"password": MsgTooShort}, nil},
		{"fifty character password", with(func(u *UserInput) { u.Password = strings.Repeat("p", 50) }), true, nil, nil},
		{"long password", with(func(u *UserInput) { u.Password = strings.Repeat("p", 51) }), true, map[string]string{"password": MsgTooLong}, nil},
		{"password over 72 bytes", with(func(u *UserInput) { u.Password = strings.Repeat("ção", 15) }), true, map[string]string{"password": MsgTooLong}, nil},
		{"password keeps its spaces", with(func(u *UserInput) { u.Password = "  abc  " }), true, nil,
			&UserInput{Name: "Ana", Email: "ana@example.com", Password: "  abc  ", Profile: ProfileUser, QueueIDs: []ID{}}},
		{"password with newline", with(func(u *UserInput) { u.Password = "abc\ndef" }), true, map[string]string{"password": MsgInvalidValue}, nil},
		{"bad email", with(func(u *UserInput) { u.Email = "ana.example.com" }), true, map[string]string{"email": MsgInvalidEmail}, nil},
		{"unknown profile", with(func(u *UserInput) { u.Profile = "root" }), true, map[string]string{"profile": MsgInvalidValue}, nil},
		{"profile is case sensitive", with(func(u *UserInput) { u.Profile = "Admin" }), false, map[string]string{"profile": MsgInvalidValue}, nil},
		{"bad ids", with(func(u *UserInput) { u.QueueIDs, u.ConnectionID = []ID{-1}, -1 }), true,
			map[string]string{"queueIds": MsgInvalidValue, "whatsappId": MsgInvalidValue}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateUser(tt.in, tt.creating)
			checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
		})
	}
	for _, p := range Profiles() {
		if _, err := ValidateUser(with(func(u *UserInput) { u.Profile = p }), true); err != nil {
			t.Errorf("profile %s: %v", p, err)
		}
	}
}

func TestValidateQueue(t *testing.T) {
	tests := []struct {
		name   string
		in     QueueInput
		fields map[string]string
		out    *QueueInput
	}{
		{"ok", QueueInput{Name: " Suporte ", Color: " #1A2B3C ", StartWork: "08:00", EndWork: "18:30", URL: "https://example.com/x"}, nil,
			&QueueInput{Name: "Suporte", Color: "#1a2b3c", StartWork: "08:00", EndWork: "18:30", URL: "https://example.com/x"}},
		{"empty", QueueInput{}, map[string]string{"name": MsgRequired, "color": MsgRequired}, nil},
		{"greeting required by the rule", QueueInput{Name: "Suporte", Color: "#ffffff", GreetingRequired: true},
			map[string]string{"greetingMessage": MsgRequired}, nil},
		{"greeting given", QueueInput{Name: "Suporte", Color: "#ffffff", GreetingRequired: true, GreetingMessage: "Olá!"}, nil, nil},
		{"short name", QueueInput{Name: "S", Color: "#ffffff"}, map[string]string{"name": MsgTooShort}, nil},
		{"colour names are not hex", QueueInput{Name: "Suporte", Color: "red"}, map[string]string{"color": MsgInvalidColor}, nil},
		{"short hex", QueueInput{Name: "Suporte", Color: "#fff"}, map[string]string{"color": MsgInvalidColor}, nil},
		{"non-hex digit", QueueInput{Name: "Suporte", Color: "#ggg000"}, map[string]string{"color": MsgInvalidColor}, nil},
		{"bad hours", QueueInput{Name: "Suporte", Color: "#ffffff", StartWork: "24:00", EndWork: "8:00"},
			map[string]string{"startWork": MsgInvalidTime, "endWork": MsgInvalidTime}, nil},
		{"start without end", QueueInput{Name: "Suporte", Color: "#ffffff", StartWork: "08:00"},
			map[string]string{"endWork": MsgRequired}, nil},
		{"url not web", QueueInput{Name: "Suporte", Color: "#ffffff", URL: "javascript:alert(1)"},
			map[string]string{"url": MsgInvalidValue}, nil},
		{"own rating question, trimmed", QueueInput{Name: "Suporte", Color: "#ffffff", NPS: true, RatingQuestion: "  Nota?\n1 ruim, 2 boa, 3 ótima \t"}, nil,
			&QueueInput{Name: "Suporte", Color: "#ffffff", NPS: true, RatingQuestion: "Nota?\n1 ruim, 2 boa, 3 ótima"}},
		{"rating question of blanks is the default", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: " \n "}, nil,
			&QueueInput{Name: "Suporte", Color: "#ffffff"}},
		{"rating question without the answers", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: "Gostou? Responda sim ou não"},
			map[string]string{"ratingQuestion": MsgInvalidValue}, nil},
		{"rating question missing 3", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: "1 ou 2?"},
			map[string]string{"ratingQuestion": MsgInvalidValue}, nil},
		{"rating question too long", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: "1 2 3 " + strings.Repeat("á", RatingQuestionMax)},
			map[string]string{"ratingQuestion": MsgTooLong}, nil},
		{"rating question with a control character", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: "1 2 3\x00"},
			map[string]string{"ratingQuestion": MsgInvalidValue}, nil},
		{"rating question not UTF-8", QueueInput{Name: "Suporte", Color: "#ffffff", RatingQuestion: "1 2 3 \xff"},
			map[string]string{"ratingQuestion": MsgInvalidValue}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateQueue(tt.in)
			checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
		})
	}
}

func TestValidateTagQuickAnswerSetting(t *testing.T) {
	t.Run("tag", func(t *testing.T) {
		tests := []struct {
			name   string
			in     TagInput
			fields map[string]string
			out    *TagInput
		}{
			{"one letter", TagInput{Name: " A "}, nil, &TagInput{Name: "A"}},
			{"with colour", TagInput{Name: "VIP", Color: "#FF0000"}, nil, &TagInput{Name: "VIP", Color: "#ff0000"}},
			{"empty", TagInput{}, map[string]string{"name": MsgRequired}, nil},
			{"long", TagInput{Name: strings.Repeat("t", 51)}, map[string]string{"name": MsgTooLong}, nil},
			{"bad colour", TagInput{Name: "VIP", Color: "blue"}, map[string]string{"color": MsgInvalidColor}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out, err := ValidateTag(tt.in)
				checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
			})
		}
	})
	t.Run("quick answer", func(t *testing.T) {
		tests := []struct {
			name   string
			in     QuickAnswerInput
			fields map[string]string
			out    *QuickAnswerInput
		}{
			{"ok, slash dropped", QuickAnswerInput{Shortcut: " /bomdia ", Message: " Bom dia!\nComo posso ajudar? "}, nil,
				&QuickAnswerInput{Shortcut: "bomdia", Message: "Bom dia!\nComo posso ajudar?"}},
			{"spaces inside a shortcut", QuickAnswerInput{Shortcut: "bom dia", Message: "x"}, nil, nil},
			{"empty", QuickAnswerInput{}, map[string]string{"shortcut": MsgRequired, "message": MsgRequired}, nil},
			{"only a slash", QuickAnswerInput{Shortcut: "/", Message: "x"}, map[string]string{"shortcut": MsgRequired}, nil},
			{"long", QuickAnswerInput{Shortcut: strings.Repeat("s", 51), Message: strings.Repeat("m", LongTextMax+1)},
				map[string]string{"shortcut": MsgTooLong, "message": MsgTooLong}, nil},
			{"multi-line shortcut", QuickAnswerInput{Shortcut: "a\nb", Message: "x"}, map[string]string{"shortcut": MsgInvalidValue}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out, err := ValidateQuickAnswer(tt.in)
				checkValidation(t, out, err, ErrValidation, tt.fields, tt.out)
			})
		}
	})
	t.Run("setting", func(t *testing.T) {
		tests := []struct {
			name   string
			in     SettingInput
			code   Code
			fields map[string]string
		}{
			{"side menu disabled", SettingInput{SettingSideMenu, "disabled"}, "", nil},
			{"user creation enabled", SettingInput{SettingUserCreation, " enabled "}, "", nil},
			{"accept calls", SettingInput{SettingAcceptCalls, "enabled"}, "", nil},
			{"unknown key", SettingInput{"theme", "enabled"}, ErrNoSettingFound, nil},
			{"key is case sensitive", SettingInput{"SideMenu", "enabled"}, ErrNoSettingFound, nil},
			{"empty value", SettingInput{SettingSideMenu, ""}, ErrValidation, map[string]string{"value": MsgRequired}},
			{"open is not a value", SettingInput{SettingSideMenu, "open"}, ErrValidation, map[string]string{"value": MsgInvalidValue}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := ValidateSetting(tt.in)
				if got := codeOf(t, err); got != tt.code {
					t.Fatalf("error %v, want %q", err, tt.code)
				}
				if tt.fields != nil && !maps.Equal(fieldsOf(err), tt.fields) {
					t.Errorf("fields %v, want %v", fieldsOf(err), tt.fields)
				}
			})
		}
	})
}

// TestValidateHostileInput: text is text. Quotes, semicolons and SQL are valid names;
// any script and emoji count as characters, not bytes; control characters, NUL and
// broken UTF-8 are refused; huge input fails on length, not on anything worse.
func TestValidateHostileInput(t *testing.T) {
	accepted := []string{
		"O'Brien; DROP TABLE users;--",
		`Robert"); DELETE FROM contacts; --`,
		"' OR '1'='1",
		"<script>alert(1)</script>",
		"%s %n {{.}} ${x}",
		"李小龙",
		"Ωμέγα",
		"مرحبا بالعالم",
		"👨‍👩‍👧 família",         // ZWJ sequence
		strings.Repeat("😀", 50), // 50 characters, 200 bytes
		"Zoë\u0301",
	}
	for _, name := range accepted {
		t.Run("accepts "+name, func(t *testing.T) {
			if _, err := ValidateContact(ContactInput{Name: name}); err != nil {
				t.Errorf("contact: %v", err)
			}
			if _, err := ValidateTag(TagInput{Name: name}); err != nil {
				t.Errorf("tag: %v", err)
			}
			out, err := ValidateQuickAnswer(QuickAnswerInput{Shortcut: "x", Message: name})
			if err != nil || out.Message != name {
				t.Errorf("quick answer: %q, %v", out.Message, err)
			}
		})
	}
	refused := []struct {
		name string
		in   string
		msg  string
	}{
		{"NUL", "Ana\x00Maria", MsgInvalidValue},
		{"bell", "Ana\aMaria", MsgInvalidValue},
		{"escape sequence", "Ana\x1b[31mMaria", MsgInvalidValue},
		{"newline in a name", "Ana\nMaria", MsgInvalidValue},
		{"C1 control", "Ana\u0085Maria", MsgInvalidValue},
		{"line separator", "Ana\u2028Maria", MsgInvalidValue},
		{"broken UTF-8", "Ana\xc3\x28", MsgInvalidValue},
		{"51 emoji", strings.Repeat("😀", 51), MsgTooLong},
		{"a megabyte", strings.Repeat("A", 1<<20), MsgTooLong},
	}
	for _, tt := range refused {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			_, err := ValidateContact(ContactInput{Name: tt.in})
			if got := fieldsOf(err)["name"]; got != tt.msg {
				t.Errorf("contact name: %q (%v), want %q", got, err, tt.msg)
			}
			_, err = ValidateUser(UserInput{Name: tt.in, Email: "a@b.co", Password: "12345", Profile: "user"}, true)
			if got := fieldsOf(err)["name"]; got != tt.msg {
				t.Errorf("user name: %q, want %q", got, tt.msg)
			}
		})
	}
	t.Run("multi-line text keeps newlines and tabs", func(t *testing.T) {
		msg := "Linha 1\r\n\tLinha 2"
		if _, err := ValidateQuickAnswer(QuickAnswerInput{Shortcut: "x", Message: msg}); err != nil {
			t.Error(err)
		}
		if _, err := ValidateQuickAnswer(QuickAnswerInput{Shortcut: "x", Message: "a\x00"}); fieldsOf(err)["message"] != MsgInvalidValue {
			t.Errorf("NUL in a message: %v", err)
		}
	})
}

// TestValidateEmptyJSON: a body of {} (or of empty strings) decodes to zero values and
// fails on exactly the required fields.
func TestValidateEmptyJSON(t *testing.T) {
	decode := func(t *testing.T, body string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatal(err)
		}
	}
	for _, body := range []string{`{}`, `{"name":"","email":"","password":"","number":"","color":"","shortcut":"","message":"","value":""}`, `{"name":null}`} {
		t.Run(body, func(t *testing.T) {
			var login LoginInput
			decode(t, body, &login)
			_, err := ValidateLogin(login)
			checkValidation[LoginInput](t, login, err, ErrValidation, map[string]string{"email": MsgRequired, "password": MsgRequired}, nil)

			var conn ConnectionInput
			decode(t, body, &conn)
			_, err = ValidateConnection(conn)
			checkValidation[ConnectionInput](t, conn, err, ErrValidation, map[string]string{"name": MsgRequired}, nil)

			var contact ContactInput
			decode(t, body, &contact)
			_, err = ValidateContact(contact)
			checkValidation[ContactInput](t, contact, err, ErrValidation, map[string]string{"name": MsgRequired}, nil)

			var user UserInput
			decode(t, body, &user)
			_, err = ValidateUser(user, true)
			checkValidation[UserInput](t, user, err, ErrValidation, map[string]string{
				"name": MsgRequired, "email": MsgRequired, "password": MsgRequired, "profile": MsgRequired}, nil)

			var queue QueueInput
			decode(t, body, &queue)
			_, err = ValidateQueue(queue)
			checkValidation[QueueInput](t, queue, err, ErrValidation, map[string]string{"name": MsgRequired, "color": MsgRequired}, nil)

			var tag TagInput
			decode(t, body, &tag)
			_, err = ValidateTag(tag)
			checkValidation[TagInput](t, tag, err, ErrValidation, map[string]string{"name": MsgRequired}, nil)

			var qa QuickAnswerInput
			decode(t, body, &qa)
			_, err = ValidateQuickAnswer(qa)
			checkValidation[QuickAnswerInput](t, qa, err, ErrValidation, map[string]string{"shortcut": MsgRequired, "message": MsgRequired}, nil)
		})
	}
	t.Run("the client cannot set GreetingRequired", func(t *testing.T) {
		var q QueueInput
		decode(t, `{"name":"Suporte","color":"#ffffff","GreetingRequired":true,"greetingRequired":true}`, &q)
		if _, err := ValidateQueue(q); err != nil {
			t.Errorf("greeting demanded by the client: %v", err)
		}
	})
}

func TestValidationErrorShape(t *testing.T) {
	_, err := ValidateUser(UserInput{}, true)
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%T is not *Error", err)
	}
	if e.Code.HTTPStatus() != 400 {
		t.Errorf("status %d", e.Code.HTTPStatus())
	}
	if got := err.Error(); got != `ERR_VALIDATION email="Required" name="Required" password="Required" profile="Required"` {
		t.Errorf("message %s", got)
	}
}

func TestInboundMessageDropMedia(t *testing.T) {
	for _, tc := range []struct {
		in   InboundMessage
		body string
	}{
		{InboundMessage{Body: "veja", MediaType: MediaImage, MediaPath: "1/a.png", MediaName: "a.png"}, "veja"},
		{InboundMessage{MediaType: MediaAudio, MediaName: "x.ogg"}, "[audio]"},
		{InboundMessage{Body: "só texto"}, "só texto"},
		{InboundMessage{}, ""},
	} {
		m := tc.in
		m.DropMedia()
		if m.Body != tc.body || m.MediaType != "" || m.MediaPath != "" || m.MediaName != "" {
			t.Errorf("DropMedia(%+v) = %+v, want body %q and no media", tc.in, m, tc.body)
		}
	}
}
