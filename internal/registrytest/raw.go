package registrytest

import "encoding/json"

func rawPayload(s string) any { return json.RawMessage(s) }
