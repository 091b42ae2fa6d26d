// Package npy reads and writes NumPy's .npy format, and directories of .npy files as named
// tensor sets, so that a Python harness exchanges tensors with rotary through np.save and
// np.load alone.
//
// A .npy file, as numpy's lib/format.py defines it, is
//
//	[6 bytes]  the magic "\x93NUMPY"
//	[2 bytes]  the format version, major and minor: 1.0, 2.0 or 3.0
//	[2 or 4]   the header length, a little-endian uint16 (1.0) or uint32 (2.0, 3.0)
//	[header]   a Python dict literal, padded with spaces and ended by a newline:
//	           {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//	[rest]     the elements, in C order, or Fortran order when fortran_order is True
//
// # The subset read
//
// Read, ReadFile and ReadDir take versions 1.0, 2.0 and 3.0, a header of at most 10000 bytes
// (_MAX_HEADER_SIZE in lib/format.py: np.load refuses larger ones too) holding exactly the
// keys 'descr', 'fortran_order' and 'shape', in any order, and the descrs of the element types
// tensor.Tensor has: f4, f8, f2, i4, i8, i1, u1, and u2 (see below), little- or big-endian
// ('|' for the one-byte types). Fortran-order data is reordered to row-major, big-endian data
// to the machine's values. Structured, object, complex and string dtypes are refused: they
// are no tensor. The header is parsed as the subset of Python literals numpy writes (quoted
// strings without escapes, True and False, tuples of non-negative ints), ASCII only.
//
// The input is treated as untrusted: no file makes the reader panic, and nothing is allocated
// before the header's counts have been checked by division and the data's size against the
// file's own, so memory is bounded by the file's real size. That is why this reader exists
// rather than codeberg.org/sbinet/npyio's: its v0.14.0 panics on a header without the closing
// newline, allocates a version-2.0 header's stated length, up to 4 GiB, before reading it, and
// accepts negative dimensions. Every error names the file and says what was expected.
//
// # What is written
//
// Write, WriteDir and WriteFiles write what np.save writes for the same array: a version 1.0
// header (2.0 only when the dict would not fit 1.0's 16-bit length, as numpy does), the dict
// in np.save's spelling, padded so that the data starts at a multiple of 64 bytes
// (ARRAY_ALIGN in lib/format.py), then the elements little-endian in C order.
//
// # BF16
//
// NumPy has no bfloat16, so BF16 travels as its uint16 bit patterns: BF16 is written as
// '<u2', and a '<u2' (or '>u2') file is read as BF16. On the Python side
// np.load(f).view(ml_dtypes.bfloat16), or torch.from_numpy(a.view(np.int16)).view(torch.bfloat16),
// gives the values back, and np.save(f, x.view(np.uint16)) sends them. A genuine uint16 array
// therefore reads as BF16: tensor.Tensor has no uint16.
//
// # Directories
//
// A directory of NAME.npy files is a tensor set, one tensor per file named by the file's stem
// (out.query.npy holds out.query), with its metadata, a JSON object of strings as a
// safetensors file's __metadata__ is, in MetadataFile. ReadDir skips other files,
// subdirectories and hidden files (macOS leaves "._x.npy" beside x.npy on some volumes);
// WriteDir and WriteFiles write every file atomically or none (see WriteDir).
package npy
