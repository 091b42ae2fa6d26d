package hf_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// configKeys are config.json keys whose reading is hf's: the RoPE and attention geometry the
// family rules interpret, and the nesting of the text model. Another package that names one
// reads the config beside hf, and its rules drift from hf's (ReadRaw is the lenient view).
var configKeys = []string{
	"attention_factor", "beta_fast", "beta_slow", "d_model", "global_head_dim", "head_dim",
	"hidden_size", "high_freq_factor", "kv_channels", "kv_lora_rank", "layer_types", "long_factor",
	"low_freq_factor", "max_position_embeddings", "mrope_interleaved", "mrope_section",
	"mscale", "mscale_all_dim", "n_embd", "n_head", "n_positions", "num_attention_heads",
	"num_key_value_heads", "original_max_position_embeddings", "partial_rotary_factor",
	"qk_rope_head_dim", "rms_norm_eps", "rope_local_base_freq", "rope_parameters", "rope_ratio",
	"rope_scaling", "rope_theta", "rope_type", "rotary_dim", "rotary_emb_base", "rotary_pct",
	"short_factor", "sliding_window_pattern", "text_config", "xdrope_section",
}

// keyMentions are the literals outside hf that name a config key in a message, not to read
// it: path (from the module root) → key. Package rope is skipped whole: it reads no config,
// and its errors name each Spec field by the config key it stands for.
var keyMentions = map[string]string{
	"golden/call.go": "max_position_embeddings", // where a cache length comes from
}

// TestConfigKeysOnlyInHF fails when a non-test Go file outside hf names one of configKeys
// as a string literal (struct tags, the names of output fields, are not literals read here).
func TestConfigKeysOnlyInHF(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range configKeys {
		keys[k] = true
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "hf" || rel == "rope" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		tags := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if field, ok := n.(*ast.Field); ok && field.Tag != nil {
				tags[field.Tag] = true
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || tags[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && keys[s] && keyMentions[rel] != s {
				t.Errorf("%s names config key %q: read it through hf (ReadRaw, Parse)", rel, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
