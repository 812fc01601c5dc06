package productsheet

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// decimal is a number as written, kept as digit strings so that amounts are
// converted to cents exactly, without passing through a float.
type decimal struct {
	neg        bool
	int, frac  string // digits only; int without leading zeros
	fracZeroes bool   // frac is all zeros (or empty)
}

// parseDecimal reads a number the way people type amounts into spreadsheets
// around the world: "12.50", "12,50", "1,299.00", "1.299,00", "1 299,00",
// "1'299.00", "$12.50", "€ 12,50", "12.50 EUR", "-5", "(5.00)".
//
// The decimal separator is the last of "." and "," when both appear; a
// separator that appears more than once separates thousands. A single
// separator followed by exactly three digits ("1,299", "1.500") is refused as
// ambiguous: it is a thousand-something in one country and a fraction in
// another, and guessing wrong would change a price a thousandfold.
func parseDecimal(s string) (decimal, error) {
	var d decimal
	s = strings.TrimSpace(s)
	if s == "" {
		return d, errors.New("is empty")
	}
	if d, ok := simpleDecimal(s); ok {
		return d, nil
	}
	orig := s
	bad := errNotNumber(orig)

	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		d.neg = true
		s = s[1 : len(s)-1]
	}
	s = stripCurrency(s)
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "−") {
		if d.neg {
			return d, bad
		}
		d.neg = true
		s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "−")
	} else if strings.HasSuffix(s, "-") && !d.neg {
		d.neg = true
		s = strings.TrimSuffix(s, "-")
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	s = stripCurrency(s)
	if s == "" {
		return d, bad
	}

	// Classify the separators.
	var dots, commas int
	lastDot, lastComma := -1, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
			lastDot = i
		case c == ',':
			commas++
			lastComma = i
		case c == ' ' || c == '\'':
		default:
			return d, bad
		}
	}
	decimalAt := -1
	switch {
	case dots > 0 && commas > 0:
		decimalAt = max(lastDot, lastComma)
		if (decimalAt == lastDot && dots > 1) || (decimalAt == lastComma && commas > 1) {
			return d, bad
		}
	case dots == 1 || commas == 1:
		at := max(lastDot, lastComma)
		before, after := s[:at], s[at+1:]
		if len(after) == 3 && strings.TrimLeft(strings.NewReplacer(" ", "", "'", "").Replace(before), "0") != "" {
			return d, fmt.Errorf("%q is ambiguous: write it without a thousands separator (e.g. 1299 or 1299.00) or with two decimals", orig)
		}
		decimalAt = at
	}

	intPart, fracPart := s, ""
	if decimalAt >= 0 {
		intPart, fracPart = s[:decimalAt], s[decimalAt+1:]
	}
	for i := 0; i < len(fracPart); i++ {
		if fracPart[i] < '0' || fracPart[i] > '9' {
			return d, bad
		}
	}
	digits, ok := ungroup(intPart)
	if !ok {
		return d, bad
	}
	if digits == "" && fracPart == "" {
		return d, bad
	}
	d.int = strings.TrimLeft(digits, "0")
	d.frac = fracPart
	d.fracZeroes = strings.Trim(fracPart, "0") == ""
	return d, nil
}

// simpleDecimal is the fast path of parseDecimal for what nearly every cell
// holds: digits with at most a decimal point and up to two decimals.
func simpleDecimal(s string) (decimal, bool) {
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || len(frac) > 2 {
		return decimal{}, false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && i != len(intPart) {
			return decimal{}, false
		}
	}
	return decimal{
		int:        strings.TrimLeft(intPart, "0"),
		frac:       frac,
		fracZeroes: strings.Trim(frac, "0") == "",
	}, true
}

type errNotNumber string

func (e errNotNumber) Error() string { return strconv.Quote(string(e)) + " is not a number" }

// ungroup removes thousands separators from the integer part, checking that
// they really group by three: "1,299" and "12 345 678" pass, "12,34" does
// not.
func ungroup(s string) (string, bool) {
	if strings.Trim(s, "0123456789") == "" {
		return s, true
	}
	groups := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '.' || r == ' ' || r == '\'' })
	if len(groups) == 0 {
		return "", false
	}
	// Separators at the start or end, or two in a row, are not grouping.
	if strings.Join(groups, "") != strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s) {
		return "", false
	}
	sepCount := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			sepCount++
		}
	}
	if sepCount != len(groups)-1 {
		return "", false
	}
	if len(groups) > 1 {
		if len(groups[0]) > 3 {
			return "", false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return "", false
			}
		}
	}
	return strings.Join(groups, ""), true
}

// stripCurrency removes a currency symbol or a three-letter currency code
// at either end, with the spaces around it.
func stripCurrency(s string) string {
	for range 2 {
		s = strings.TrimSpace(s)
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.Is(unicode.Sc, r) })
		s = strings.TrimSpace(s)
		if len(s) > 3 && isLetters(s[:3]) && !isLetter(s[3]) {
			s = s[3:]
		}
		if n := len(s); n > 3 && isLetters(s[n-3:]) && !isLetter(s[n-4]) {
			s = s[:n-3]
		}
	}
	return strings.TrimSpace(s)
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// parseMoney converts an amount to cents, exactly. More than two decimals is
// an error (unless the extra digits are zeros), because rounding a price
// silently is worse than asking.
func parseMoney(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	frac := strings.TrimRight(d.frac, "0")
	if len(frac) > 2 {
		return 0, fmt.Errorf("%q has more than 2 decimals", strings.TrimSpace(s))
	}
	if len(d.int) > 13 {
		return 0, fmt.Errorf("%q is too large", strings.TrimSpace(s))
	}
	cents := int64(0)
	for _, c := range d.int + (frac + "00")[:2] {
		cents = cents*10 + int64(c-'0')
	}
	if d.neg {
		cents = -cents
	}
	return cents, nil
}

// parseInt reads a whole number ("3", "3.0", "1,000,000"); a fraction is an
// error.
func parseInt(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	if !d.fracZeroes {
		return 0, fmt.Errorf("%q is not a whole number", strings.TrimSpace(s))
	}
	return decimalInt(d, s)
}

// parseRoundedInt reads a number and rounds it half up to a whole number;
// rounded reports whether there was a fraction to round away.
func parseRoundedInt(s string) (n int64, rounded bool, err error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, false, err
	}
	n, err = decimalInt(d, s)
	if err != nil {
		return 0, false, err
	}
	if !d.fracZeroes {
		rounded = true
		if d.frac[0] >= '5' {
			if d.neg {
				n--
			} else {
				n++
			}
		}
	}
	return n, rounded, nil
}

func decimalInt(d decimal, s string) (int64, error) {
	if len(d.int) > 15 {
		return 0, fmt.Errorf("%q is too large", strings.TrimSpace(s))
	}
	var n int64
	if d.int != "" {
		var err error
		if n, err = strconv.ParseInt(d.int, 10, 64); err != nil {
			return 0, fmt.Errorf("%q is not a number", strings.TrimSpace(s))
		}
	}
	if d.neg {
		n = -n
	}
	return n, nil
}

// formatCents writes cents as the plain amount every program reads: "12.50".
func formatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// validURL checks that s is an absolute http(s) URL: anything else cannot be
// fetched as an image.
func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \n\t")
}
