package providerfake

// Usage is the token usage a built answer reports: Input tokens, of which
// CacheRead were read from the provider's cache, and Output tokens. Each
// builder writes it in its provider's shape.
type Usage struct {
	Input, CacheRead, Output int
}
