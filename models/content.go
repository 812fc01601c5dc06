package models

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"golang.org/x/net/html"
)

// The rules pages and blog articles share: when a record is published, and
// what an article's excerpt is when nobody wrote one.

// IsPublished reports whether a page or article whose published_at is
// publishedAt is live at now: published_at set and not in the future. A
// future published_at schedules it; none is a draft.
func IsPublished(publishedAt *time.Time, now time.Time) bool {
	return publishedAt != nil && !publishedAt.After(now)
}

// wherePublished narrows q (a list of pages or articles, alias alias) to
// the live records when published is true, to drafts and scheduled ones
// when it is false: IsPublished at the database's clock.
func wherePublished(q *bun.SelectQuery, alias string, published bool) *bun.SelectQuery {
	if published {
		return q.Where("?.published_at <= now()", bun.Ident(alias))
	}
	return q.Where("(?0.published_at IS NULL OR ?0.published_at > now())", bun.Ident(alias))
}

// ExcerptLength bounds a derived excerpt, in characters, "…" included.
const ExcerptLength = 200

// Excerpt is the excerpt of an article whose body is bodyHTML, for an
// article given none: the body's text (tags stripped, the contents of
// script, style and template elements dropped, entities decoded), its white
// space collapsed to single spaces, and, when longer than ExcerptLength
// characters, cut at the last word boundary that fits, followed by "…".
func Excerpt(bodyHTML string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(bodyHTML))
	skip := 0 // inside script, style or template
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return cutAtWord(strings.Join(strings.Fields(b.String()), " "), ExcerptLength)
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "template":
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			default:
				// Block elements and line breaks separate words:
				// "<p>One</p><p>Two</p>" is "One Two", not "OneTwo".
				b.WriteByte(' ')
			}
		}
	}
}

// cutAtWord is s when it has at most max characters, else its longest
// prefix ending at a word boundary that fits with "…" after it (a first
// word longer than that is cut inside the word).
func cutAtWord(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	cut := max - 1 // room for "…"
	for i := cut; i > 0; i-- {
		if unicode.IsSpace(runes[i]) { // runes[:i] ends a word
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(runes[:cut]), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}
