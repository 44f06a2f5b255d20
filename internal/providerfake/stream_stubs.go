package providerfake

// The converters of whole answers into streams; each provider's own file
// replaces its stub.

func openAIStreamOf(body []byte) ([]Event, string, bool) { return nil, "", false }
func chatStreamOf(body []byte) ([]Event, string, bool)   { return nil, "", false }
