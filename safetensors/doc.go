// Package safetensors reads and writes the HuggingFace safetensors format.
//
// A safetensors file is laid out as
//
//	[8 bytes]  N, the header length, a little-endian uint64
//	[N bytes]  a UTF-8 JSON object, optionally padded at the end with spaces (0x20)
//	[rest]     the data buffer
//
// Each key of the header object is a tensor name mapping to
//
//	{"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
//
// where the offsets are byte offsets into the data buffer, and the optional key
// "__metadata__" maps to an object of string to string. Element bytes are
// little-endian and stored row-major.
//
// Parse is written for untrusted input: it never panics, bounds the header at
// MaxHeaderSize, and rejects anything malformed with an error wrapping ErrInvalid
// that names the offending tensor or field. Within those rules it is lenient in
// two ways the reference implementation is not: the data buffer may contain bytes
// that belong to no tensor (gaps or trailing bytes), and unknown fields inside a
// tensor entry are ignored. Parsed tensors alias the input slice.
//
// Write produces a canonical file: "__metadata__" first (omitted when empty), then
// tensors sorted by name, in compact JSON, with the header padded with spaces to a
// multiple of 8 bytes; the data is laid out contiguously in the order the tensors
// were given.
//
// ReadFile and WriteFile take only regular files. ReadFile checks the header length and
// every tensor's range against the file's size before reading them, and reads only the
// tensors' bytes. WriteFile refuses to replace anything but a regular file and replaces
// one atomically, leaving nothing behind on failure.
package safetensors
