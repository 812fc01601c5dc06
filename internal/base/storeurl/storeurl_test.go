package storeurl

import "testing"

func ownHost(h string) bool { return h == "shop.example.com" || h == "www.shop.example.com" }

func TestPath(t *testing.T) {
	for raw, want := range map[string]string{
		"/sale":                               "/sale",
		" sale ":                              "/sale",
		"/sale/":                              "/sale",
		"/a//b/./c/../d":                      "/a/b/d",
		"/café au lait":                       "/caf%C3%A9%20au%20lait",
		"/caf%C3%A9%20au%20lait":              "/caf%C3%A9%20au%20lait",
		"/p?b=2&a=1&b=2":                      "/p?a=1&b=2",
		"/p?b=2&a=1&b=2&":                     "/p?a=1&b=2",
		"/p?q=a+b&q=a%20b":                    "/p?q=a+b",
		"/p?flag&a=":                          "/p?a=&flag",
		"/p?":                                 "/p",
		"/?ref=ad":                            "/?ref=ad",
		"https://shop.example.com/old/":       "/old",
		"HTTPS://Shop.Example.com./x?z=1&y=2": "/x?y=2&z=1",
		"http://www.shop.example.com:8080/x":  "/x",
		"sale:2024":                           "/sale:2024",
	} {
		got, err := Path(raw, ownHost)
		if err != nil || got != want {
			t.Errorf("Path(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for raw, want := range map[string]string{
		"":                               "must not be empty",
		"/":                              "must not be the home page, which the storefront always answers",
		"https://shop.example.com/":      "must not be the home page, which the storefront always answers",
		"/a#top":                         "must not have a #fragment: browsers never send it to the store, so no request would match",
		"https://elsewhere.com/a":        "must be a path of this store, and elsewhere.com is not one of its domains",
		"//elsewhere.com/a":              "must start with the scheme (https://) when it names a host",
		"ftp://shop.example.com/a":       "must be a path (/sale) or an http or https URL, not a ftp: address",
		"mailto:ana@example.com":         "must be a path (/sale) or an http or https URL, not a mailto: address",
		"/a\tb":                          "must not contain control characters (tabs, line breaks)",
		"/p?a=%zz":                       `has a query parameter that is not well-formed: "a=%zz"`,
		"/a%zz":                          "is not a well-formed path: invalid URL escape \"%zz\"",
		"https://":                       "is a URL without a host",
		"https://u:p@shop.example.com/a": "must not carry a user name or password",
	} {
		if got, err := Path(raw, ownHost); err == nil || err.Error() != want {
			t.Errorf("Path(%q) = %q, %v; want the error %q", raw, got, err, want)
		}
	}
}

func TestTarget(t *testing.T) {
	for raw, want := range map[string]string{
		"/":                                     "/",
		"/products/mug#reviews":                 "/products/mug#reviews",
		"collections/sale?page=2&page=2":        "/collections/sale?page=2",
		"https://shop.example.com/pages/about/": "/pages/about",
		"HTTPS://Elsewhere.COM/A?b=2&a=1#x":     "https://elsewhere.com/A?b=2&a=1#x",
		"http://elsewhere.com":                  "http://elsewhere.com",
	} {
		got, err := Target(raw, ownHost)
		if err != nil || got != want {
			t.Errorf("Target(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"", "javascript:alert(1)", "//elsewhere.com", "data:text/html,x"} {
		if got, err := Target(raw, ownHost); err == nil {
			t.Errorf("Target(%q) = %q, want an error", raw, got)
		}
	}
	if got := WithoutFragment("/a?b=1#c"); got != "/a?b=1" {
		t.Errorf("WithoutFragment = %q", got)
	}
}
