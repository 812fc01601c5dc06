package useragent

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		header string
		want   Agent
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
			Agent{Browser: "Chrome", BrowserVersion: "120.0.0.0", OS: "Windows", OSVersion: "10.0", Device: Desktop}},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
			Agent{Browser: "Safari", BrowserVersion: "17.1", OS: "iOS", OSVersion: "17.1", Device: Mobile}},
		{"Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
			Agent{Browser: "Safari", BrowserVersion: "16.6", OS: "iOS", OSVersion: "16.6", Device: Tablet}},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
			Agent{Browser: "Googlebot", BrowserVersion: "2.1", Device: Bot, IsBot: true}},
		{"", Agent{Device: Other}},
	} {
		got := Parse(c.header)
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.header, got, c.want)
		}
	}
}
