package hf

// Warnings are the reasons m's RoPE may not be the checkpoint's, one line each: what was
// assumed for a model_type hf does not know (Assumption), then why transformers main cannot run
// the config (HFFails), then the keys that were not read (Unread). A wrong guess gives plausible
// numbers that no later check can catch: rotary inspect and check print these, and --strict
// refuses a config that has any. Nil for a nil Model.
func (m *Model) Warnings() []string {
	if m == nil {
		return nil
	}
	var out []string
	if a := m.Assumption(); a != "" {
		out = append(out, a)
	}
	for _, f := range m.HFFails {
		out = append(out, f.String())
	}
	for _, u := range m.Unread {
		out = append(out, u.String())
	}
	return out
}
