package engine

import "testing"

func TestIsCommonPassword(t *testing.T) {
	for pw, want := range map[string]bool{
		"password": true, "PassWord": true, "123456789": true, "qwerty": true, "iloveyou": true,
		"password1": true, "letmein": true,
		"": false, "# The 10,000 most frequent entries": false, "ticket-azul-cuiaba-77": false, "Vq7#pL2!xz": false,
	} {
		if got := IsCommonPassword(pw); got != want {
			t.Errorf("IsCommonPassword(%q) = %v, want %v", pw, got, want)
		}
	}
	if n := len(commonPasswords()); n < 9000 || n > 10000 {
		t.Errorf("%d passwords in the list, want the ~10,000 most common", n)
	}
	if err := CheckNotCommon("password", "Password1"); CodeOf(err) != ErrValidation {
		t.Errorf("CheckNotCommon = %v", err)
	}
	if err := CheckNotCommon("password", "ticket-azul-cuiaba-77"); err != nil {
		t.Errorf("CheckNotCommon refused an uncommon password: %v", err)
	}
}
