package models

// The storefront's paths for the records a shopper can open. Navigation menus
// link to them, URL redirects are checked against them (a redirect from a
// path a live record answers is shadowed), and a changed handle leaves a
// redirect from the old path to the new.
const (
	PathProducts    = "/products/"
	PathCollections = "/collections/"
	PathPages       = "/pages/"
	// PathBlog is the store's one blog; an article is PathBlog + "/" + handle.
	PathBlog = "/blog"
)

// ProductPath is the storefront path of the product with handle h.
func ProductPath(h string) string { return PathProducts + h }

// CollectionPath is the storefront path of the collection with handle h.
func CollectionPath(h string) string { return PathCollections + h }

// PagePath is the storefront path of the page with handle h.
func PagePath(h string) string { return PathPages + h }

// ArticlePath is the storefront path of the blog article with handle h.
func ArticlePath(h string) string { return PathBlog + "/" + h }

// PathSearch is the storefront's search page (its query in the query
// string).
const PathSearch = "/search"
