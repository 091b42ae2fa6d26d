// Package gguf reads the header of a GGUF file (llama.cpp's model format) and derives the
// model's RoPE from it as llama.cpp does.
//
// A GGUF file is laid out as (all integers little-endian; ggml/src/gguf.cpp
// gguf_init_from_reader, gguf-py/gguf/constants.py):
//
//	"GGUF"          magic
//	uint32          version: 2 or 3 (version 1 used 32-bit counts and is no longer read)
//	int64           tensor count
//	int64           metadata key/value count
//	key/values      string key, uint32 value type, value; an array is the element type,
//	                a uint64 length and the elements (arrays of arrays are refused)
//	tensor infos    string name, uint32 dims (≤ 4), int64 per dim, uint32 ggml type,
//	                uint64 offset into the data section
//	padding         to general.alignment (32 when absent)
//	data            the tensors
//
// where a string is a uint64 length and that many bytes. ReadFile and Parse read the
// header and the tensor infos and nothing of the data section but the RoPE frequency-factor
// tensors (rope_freqs.weight, rope_factors_long.weight, rope_factors_short.weight) when the
// file has them. They are written for untrusted input: they never panic, every count and
// length is checked against the bytes left in the file (and the header against
// MaxHeaderSize) before anything is allocated for it, every tensor must lie inside the file,
// and every error wraps ErrInvalid and is one line naming what was wrong and where.
// Where it differs from gguf.cpp: keys and tensor names must be UTF-8, tensors need only be
// aligned and inside the file (gguf.cpp also wants them packed in order), and File.RoPE reads
// an integer or float key of any width where llama.cpp's loader wants its field's exact type.
//
// File.RoPE derives the rope.Spec llama.cpp rotates by: general.architecture picks the rope
// type (llama_model_rope_type in src/llama-model.cpp: none, normal — GPT-J's adjacent pairs —,
// NeoX, MRoPE, interleaved MRoPE, vision), and the {arch}.rope.*, {arch}.context_length and
// {arch}.attention.* keys and the frequency-factor tensors give the rest
// (llama_model_base::load_hparams), the keys some architectures' loaders alone read (YaRN's
// betas, ext and attention factors, log multiplier, NTK alpha, Granite's RoPE switch) only for
// those architectures, and a few graph builders' own rules (starcoder and bert never rotate,
// deepseek2-ocr rotates NeoX). What llama.cpp does that a rope.Spec cannot say, per-layer
// RoPE included, is refused with an error wrapping ErrUnsupported that names it, rather than
// approximated. The tables and rules were checked against llama.cpp 82bb48500 (2026-08-07).
//
// Write produces a GGUF file of metadata and tensors, for tests and tools that make small
// files.
package gguf
