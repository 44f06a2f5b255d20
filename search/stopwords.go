package search

// stopWords are general-purpose English function words and conversational
// fillers ("please", "could you") that carry no information about which tool
// a request needs. The list is generic English; nothing in it comes from an
// evaluation set.
var stopWords = func() map[string]struct{} {
	words := []string{
		// articles, conjunctions, prepositions
		"a", "an", "the", "and", "or", "but", "nor", "so", "yet", "if", "then", "else",
		"of", "at", "by", "for", "with", "about", "against", "between", "into", "through",
		"during", "before", "after", "above", "below", "to", "from", "up", "down", "in",
		"out", "on", "off", "over", "under", "again", "further", "once", "as", "than",
		"too", "very", "via", "per", "upon", "onto", "within", "without", "also",
		// pronouns and determiners
		"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
		"you", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself",
		"she", "her", "hers", "herself", "it", "its", "itself", "they", "them", "their",
		"theirs", "themselves", "this", "that", "these", "those", "who", "whom", "whose",
		"which", "what", "there", "here", "each", "both", "all", "any", "some", "such",
		"own", "same", "other", "another", "few", "more", "most", "much", "many",
		// auxiliaries and modals
		"am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
		"having", "do", "does", "did", "doing", "done", "can", "could", "will", "would",
		"shall", "should", "may", "might", "must", "ought",
		// contractions split at the apostrophe
		"s", "t", "d", "ll", "m", "re", "ve", "don", "doesn", "didn", "isn", "aren",
		"wasn", "weren", "won", "wouldn", "couldn", "shouldn", "can't", "cannot",
		// adverbs and question words that do not name a capability
		"how", "when", "where", "why", "just", "only", "now", "not", "no", "yes",
		"while", "because", "until", "whether", "however", "really", "quite",
		// conversational fillers
		"please", "kindly", "thanks", "thank", "hi", "hello", "hey", "ok", "okay",
		"let", "lets", "let's", "like", "want", "wanna", "need", "something",
		"anything", "someone", "anyone", "somebody", "anybody", "maybe", "perhaps",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
