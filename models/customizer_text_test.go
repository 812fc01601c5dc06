package models

import "testing"

// TestCheckCzText: a shopper's text answer against its option's rules.
func TestCheckCzText(t *testing.T) {
	for _, c := range []struct {
		name   string
		kind   string
		v      CzTextValidation
		answer string
		ok     bool
	}{
		{"no rules", CzOptionTextarea, CzTextValidation{}, "anything at all ✓\nsecond line", true},
		{"text is one line", CzOptionText, CzTextValidation{}, "a\nb", false},
		{"a control character", CzOptionText, CzTextValidation{}, "a\tb", false},
		{"max_length in runes", CzOptionText, CzTextValidation{MaxLength: 3}, "éàü", true},
		{"max_length over", CzOptionText, CzTextValidation{MaxLength: 3}, "abcd", false},
		{"max_lines", CzOptionTextarea, CzTextValidation{MaxLines: 2}, "a\nb", true},
		{"max_lines over", CzOptionTextarea, CzTextValidation{MaxLines: 2}, "a\nb\nc", false},
		{"chars_per_line", CzOptionTextarea, CzTextValidation{CharsPerLine: 2}, "ab\ncd", true},
		{"chars_per_line over", CzOptionTextarea, CzTextValidation{CharsPerLine: 2}, "ab\ncde", false},
		{"letters", CzOptionText, CzTextValidation{Mode: "letters"}, "Zoë Ana", true},
		{"letters, a digit", CzOptionText, CzTextValidation{Mode: "letters"}, "Ana 2", false},
		{"letters_digits", CzOptionText, CzTextValidation{Mode: "letters_digits"}, "Ana 2", true},
		{"letters_digits, punctuation", CzOptionText, CzTextValidation{Mode: "letters_digits"}, "Ana!", false},
		{"digits", CzOptionTextarea, CzTextValidation{Mode: "digits"}, "0123\n45", true},
		{"digits, a space", CzOptionText, CzTextValidation{Mode: "digits"}, "01 23", false},
		{"upper", CzOptionText, CzTextValidation{Mode: "upper"}, "ANA & BO 2!", true},
		{"upper, a lower-case letter", CzOptionText, CzTextValidation{Mode: "upper"}, "ANa", false},
		{"pattern is anchored", CzOptionText, CzTextValidation{Pattern: "[a-z]+"}, "abc", true},
		{"pattern, a partial match", CzOptionText, CzTextValidation{Pattern: "[a-z]+"}, "abc1", false},
		{"pattern alternation is anchored whole", CzOptionText, CzTextValidation{Pattern: "a|b"}, "ab", false},
	} {
		if err := CheckCzText(c.kind, c.v, c.answer); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
