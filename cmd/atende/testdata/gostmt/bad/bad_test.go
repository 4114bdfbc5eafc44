package bad

import "testing"

func TestStart(t *testing.T) {
	go func() {}()
}
