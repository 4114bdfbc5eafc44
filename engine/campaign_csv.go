package engine

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// CSV import of campaign contacts. A line is
//
//	number[,name[,param1[,param2[,param3[,param4[,param5]]]]]]
//
// separated by commas or semicolons (the first line decides; spreadsheets in pt-BR
// write semicolons). A first line whose first cell is not a number is a header and is
// skipped. The number keeps its digits (a leading +, spaces, dots, dashes and
// parentheses are dropped) and must have 8 to 15 of them. A line that cannot be read
// is reported with its line number and MsgCSVFormat; the good lines are kept.

// Limits of one import.
const (
	MaxCSVLines     = 200_000
	MaxCSVLineBytes = 4096
	MaxCSVCellRunes = 500
)

// CSVLineError is one refused line of an import.
type CSVLineError struct {
	Line    int    `json:"line"` // 1-based
	Message string `json:"message"`
	Text    string `json:"text"` // the line as read, cut to 200 bytes
}

// CampaignCSV is the outcome of reading a CSV: the good lines and the bad ones.
type CampaignCSV struct {
	Contacts []CampaignContactParams `json:"contacts"`
	Errors   []CSVLineError          `json:"errors"`
}

// ErrCSVTooLarge is returned when the file has more than MaxCSVLines lines.
var ErrCSVTooLarge = errors.New("csv: too many lines")

// ParseCampaignCSV reads a CSV of campaign contacts from r. Only a read error of r or
// a file over MaxCSVLines lines fail the whole import.
func ParseCampaignCSV(r io.Reader) (CampaignCSV, error) {
	var out CampaignCSV
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	sep := byte(0)
	seen := map[string]bool{}
	n := 0
	for sc.Scan() {
		n++
		if n > MaxCSVLines {
			return out, ErrCSVTooLarge
		}
		raw := sc.Bytes()
		if n == 1 {
			raw = trimBOM(raw)
		}
		line := strings.TrimRight(string(raw), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		bad := func(msg string) {
			text := line
			if len(text) > 200 {
				text = strings.ToValidUTF8(text[:200], "")
			}
			out.Errors = append(out.Errors, CSVLineError{Line: n, Message: msg, Text: text})
		}
		if len(line) > MaxCSVLineBytes || !utf8.ValidString(line) {
			bad(MsgCSVFormat)
			continue
		}
		if sep == 0 {
			sep = ','
			if strings.Count(line, ";") > strings.Count(line, ",") {
				sep = ';'
			}
		}
		cr := csv.NewReader(strings.NewReader(line))
		cr.Comma = rune(sep)
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = false
		cells, err := cr.Read()
		if err != nil || len(cells) == 0 || len(cells) > 2+MaxCampaignParams {
			bad(MsgCSVFormat)
			continue
		}
		number, ok := csvNumber(cells[0])
		if !ok {
			if n == 1 || (len(out.Contacts) == 0 && len(out.Errors) == 0) {
				continue // a header line
			}
			bad(MsgInvalidNumber)
			continue
		}
		c := CampaignContactParams{Number: number, Params: []string{}}
		tooLong := false
		for i, cell := range cells[1:] {
			cell = strings.TrimSpace(cell)
			if utf8.RuneCountInString(cell) > MaxCSVCellRunes || strings.ContainsAny(cell, "\x00") {
				tooLong = true
			}
			if i == 0 {
				c.Name = cell
				continue
			}
			c.Params = append(c.Params, cell)
		}
		if tooLong {
			bad(MsgCSVFormat)
			continue
		}
		if seen[number] {
			continue // the same number twice: the first line wins
		}
		seen[number] = true
		out.Contacts = append(out.Contacts, c)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			out.Errors = append(out.Errors, CSVLineError{Line: n + 1, Message: MsgCSVFormat})
			return out, nil
		}
		return out, err
	}
	return out, nil
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// csvNumber keeps the digits of a phone cell: 8 to 15 of them, with only + at the
// start, spaces, dots, dashes and parentheses around.
func csvNumber(cell string) (string, bool) {
	cell = strings.TrimSpace(cell)
	cell = strings.TrimPrefix(cell, "+")
	var b strings.Builder
	for _, r := range cell {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '.' || r == '-' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	d := b.String()
	return d, len(d) >= 8 && len(d) <= 15
}
