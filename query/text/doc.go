// Package text is MongoDB's $text language, pure: how a text index reads
// a document (tokens, stop words, stemming, case folding, diacritics, per
// field weights and per document languages), how a $text search string
// is read (terms OR'ed, "phrases" AND'ed, -negations), and MongoDB's
// textScore.
//
// # Tokens
//
// A string is cut into tokens at delimiters: the code points Unicode
// gives the properties White_Space, Dash, Hyphen, Quotation_Mark,
// Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal, except the
// apostrophe in English (so "don't" stays one token, as in MongoDB's text
// index version 3). Each token is lower-cased (Turkish dotted and dotless
// i in Turkish), dropped if it is a stop word of the language, stemmed
// with the language's Snowball stemmer, then stripped of diacritics
// (Unicode's Diacritic property, after canonical decomposition). The
// stemmers are github.com/blevesearch/snowballstem, the stop word lists
// Snowball's, as bleve ships them (MongoDB's lists come from Snowball
// too); Romanian has no stop words, as in MongoDB; "none" neither stems
// nor drops stop words.
//
// # Scores
//
// For each string an index field holds (each element of an array on its
// own), with n its tokens after stop words: a term seen c times gets
// weight × (1 + 1/2 + … + 1/2^(c-1)) × (0.5 + 0.5·c/n), times 1.1 when
// the whole string is that one term; a document's score for a term is the
// sum over its strings. A query's textScore is the sum of the document's
// scores for the query's distinct positive terms (those of its phrases
// included), as MongoDB computes it.
package text
