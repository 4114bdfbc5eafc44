package engine

import (
	_ "embed"
	"strings"
	"sync"
)

// Field messages of the password rules that are Atende's own.
const (
	// MsgCommonPassword: the password is on the common-password list (production).
	MsgCommonPassword = "Too common"
	// MsgWrongPassword: the current password given to change one's own is wrong.
	MsgWrongPassword = "Wrong password"
)

// commonPasswordsText is the list of common passwords (its header says where it
// comes from): one lower-case password a line, # starts a comment.
//
//go:embed commonpasswords.txt
var commonPasswordsText string

// commonPasswords is the list as a set, built on first use.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 10000)
	for line := range strings.Lines(commonPasswordsText) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[line] = struct{}{}
	}
	return set
})

// IsCommonPassword reports whether pw, ignoring case, is one of the most common
// passwords (the ones guessed first). The list is embedded in the binary.
func IsCommonPassword(pw string) bool {
	_, ok := commonPasswords()[strings.ToLower(pw)]
	return ok
}

// CheckNotCommon is ErrValidation with field's MsgCommonPassword when pw is a common
// password, else nil.
func CheckNotCommon(field, pw string) error {
	if IsCommonPassword(pw) {
		return &Error{Code: ErrValidation, Fields: map[string]string{field: MsgCommonPassword}}
	}
	return nil
}
