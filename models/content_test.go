package models

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 characters
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"<p>Hello <b>world</b></p>", "Hello world"},
		{"<p>One</p><p>Two</p>", "One Two"},
		{"Line<br>break", "Line break"},
		{"Fish &amp; chips &lt;3", "Fish & chips <3"},
		{"<script>alert(1)</script><style>p{}</style>Shown<template><p>hidden</p></template>", "Shown"},
		{"  spaced \n\t out  ", "spaced out"},
		{"<p>" + long + "</p>", strings.TrimSpace(strings.Repeat("word ", 40)) + "…"},
		{strings.Repeat("x", 250), strings.Repeat("x", 199) + "…"},
		{strings.Repeat("ab, ", 60), strings.TrimSuffix(strings.Repeat("ab, ", 50), ", ") + "…"},
		{strings.Repeat("é", 199) + " tail", strings.Repeat("é", 199) + "…"},
	} {
		got := Excerpt(c.in)
		if got != c.want {
			t.Errorf("Excerpt(%.40q) = %q, want %q", c.in, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > ExcerptLength {
			t.Errorf("Excerpt(%.40q) has %d characters", c.in, n)
		}
	}
}

func TestIsPublished(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, c := range []struct {
		at   *time.Time
		want bool
	}{{nil, false}, {&past, true}, {&now, true}, {&future, false}} {
		if got := IsPublished(c.at, now); got != c.want {
			t.Errorf("IsPublished(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}
