package tokencount

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names the vocabulary Count uses, that of OpenAI's GPT-4o, GPT-4.1,
// GPT-5 and o-series models.
const Encoding = "o200k_base"

// Count returns the number of o200k_base tokens in data, read as UTF-8 text.
func Count(data []byte) (int, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return 0, fmt.Errorf("tokencount: %s: %w", Encoding, err)
	}
	n, err := codec.Count(string(data))
	if err != nil {
		return 0, fmt.Errorf("tokencount: %w", err)
	}
	return n, nil
}
