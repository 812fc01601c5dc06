package formsheet

import (
	"slices"
	"testing"
	"time"
)

func TestRows(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database")
	}
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	rows := Rows([]Submission{
		{ID: 7, CreatedAt: at, Type: "contact", Name: "Ana", Email: "ana@example.com", Message: "Hello", SourceURL: "/pages/contact", ReadAt: at.Add(time.Hour)},
		{ID: 8, CreatedAt: at, Type: "newsletter", Email: "ben@example.com"},
	}, berlin)
	want := [][]string{
		{"7", "2026-03-02 10:30:00 +0100", "contact", "Ana", "ana@example.com", "Hello", "/pages/contact", "TRUE", "2026-03-02 11:30:00 +0100"},
		{"8", "2026-03-02 10:30:00 +0100", "newsletter", "", "ben@example.com", "", "", "FALSE", ""},
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
	if len(Header()) != len(Types()) || len(Header()) != len(rows[0]) {
		t.Errorf("header %d, types %d, row %d columns", len(Header()), len(Types()), len(rows[0]))
	}
}
