// Package raw reads the headerless buffers that hardware harnesses dump: a tensor's elements,
// row-major and little-endian, in a file that holds nothing else, with the dtype and shape
// given beside it. rotary diff and verify take them as --raw NAME=DTYPE:SHAPE:FILE (ParseSpec).
//
// A file must hold exactly the shape's bytes: a buffer dumped with the wrong shape or dtype is
// refused rather than read as something else. Only regular files are read, and nothing is
// allocated before the file's size is known to match.
package raw
