package sio

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonKind is the first non-blank byte of a JSON text ('{', '[', '"', a digit, 't'…),
// or 0 for an empty one.
func jsonKind(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// SplitArray returns the elements of the JSON array a, each as the raw bytes of its
// value (blanks trimmed), aliasing a. It fails with ErrTooManyArgs once more than max
// elements are seen, and with ErrBadJSON when a is not a well-formed array; it does
// not check scalar literals, so run json.Valid first when that matters.
func SplitArray(a []byte, max int) ([]json.RawMessage, error) {
	i := skipBlank(a, 0)
	if i >= len(a) || a[i] != '[' {
		return nil, fmt.Errorf("split array: %w", ErrBadJSON)
	}
	i = skipBlank(a, i+1)
	if i < len(a) && a[i] == ']' {
		if skipBlank(a, i+1) != len(a) {
			return nil, fmt.Errorf("split array: trailing bytes: %w", ErrBadJSON)
		}
		return nil, nil
	}
	var out []json.RawMessage
	for {
		if len(out) == max {
			return nil, fmt.Errorf("split array: more than %d elements: %w", max, ErrTooManyArgs)
		}
		end, err := skipValue(a, i)
		if err == nil && end == i {
			err = ErrBadJSON // an empty element: "[,1]", "[1,]"
		}
		if err != nil {
			return nil, fmt.Errorf("split array element %d: %w", len(out), err)
		}
		out = append(out, json.RawMessage(a[i:end]))
		i = skipBlank(a, end)
		if i >= len(a) {
			return nil, fmt.Errorf("split array: unterminated: %w", ErrBadJSON)
		}
		switch a[i] {
		case ',':
			i = skipBlank(a, i+1)
		case ']':
			if skipBlank(a, i+1) != len(a) {
				return nil, fmt.Errorf("split array: trailing bytes: %w", ErrBadJSON)
			}
			return out, nil
		default:
			return nil, fmt.Errorf("split array: unexpected %q: %w", a[i], ErrBadJSON)
		}
	}
}

func skipBlank(a []byte, i int) int {
	for i < len(a) {
		switch a[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// skipValue returns the index just past the JSON value starting at a[i]. It tracks
// nesting and strings only; scalars run until a delimiter.
func skipValue(a []byte, i int) (int, error) {
	if i >= len(a) {
		return 0, ErrBadJSON
	}
	depth := 0
	for i < len(a) {
		switch c := a[i]; c {
		case '"':
			end, err := skipString(a, i)
			if err != nil {
				return 0, err
			}
			i = end
			if depth == 0 {
				return i, nil
			}
			continue
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return i, nil // a scalar ended by its container
			}
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, nil
			}
		}
		i++
	}
	if depth != 0 {
		return 0, ErrBadJSON
	}
	return i, nil
}

// skipString returns the index just past the JSON string starting at a[i] == '"'.
func skipString(a []byte, i int) (int, error) {
	for i++; i < len(a); i++ {
		switch a[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, ErrBadJSON
}

// DecodeString decodes the JSON string raw (blanks around it allowed); ok is false
// when raw is not a JSON string. A string without escapes is decoded without
// encoding/json, whose reflection would deepen the caller's stack for good.
func DecodeString(raw []byte) (s string, ok bool) {
	i := skipBlank(raw, 0)
	if i >= len(raw) || raw[i] != '"' {
		return "", false
	}
	end, err := skipString(raw, i)
	if err != nil || skipBlank(raw, end) != len(raw) {
		return "", false
	}
	body := raw[i+1 : end-1]
	plain := utf8.Valid(body)
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(body), true
	}
	if json.Unmarshal(raw[i:end], &s) != nil {
		return "", false
	}
	return s, true
}

// ObjectFields calls fn with each member of the JSON object obj, in order: its key
// and its raw value. obj must be valid JSON (run json.Valid first); ErrBadPayload
// when it is not an object.
func ObjectFields(obj []byte, fn func(key string, value json.RawMessage)) error {
	i := skipBlank(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return fmt.Errorf("object fields: %w", ErrBadPayload)
	}
	i = skipBlank(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		kend, err := skipString(obj, i)
		if err != nil || obj[i] != '"' {
			return fmt.Errorf("object fields: key: %w", ErrBadJSON)
		}
		key, ok := DecodeString(obj[i:kend])
		if !ok {
			return fmt.Errorf("object fields: key: %w", ErrBadJSON)
		}
		i = skipBlank(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return fmt.Errorf("object fields: %w", ErrBadJSON)
		}
		i = skipBlank(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil || vend == i {
			return fmt.Errorf("object fields: value of %.40q: %w", key, ErrBadJSON)
		}
		fn(key, json.RawMessage(obj[i:vend]))
		i = skipBlank(obj, vend)
		if i >= len(obj) {
			break
		}
		switch obj[i] {
		case ',':
			i = skipBlank(obj, i+1)
		case '}':
			return nil
		default:
			return fmt.Errorf("object fields: unexpected %q: %w", obj[i], ErrBadJSON)
		}
	}
	return fmt.Errorf("object fields: unterminated: %w", ErrBadJSON)
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendUint appends the decimal form of n.
func appendUint(dst []byte, n uint64) []byte {
	return strconv.AppendUint(dst, n, 10)
}
