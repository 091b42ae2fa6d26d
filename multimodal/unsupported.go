package multimodal

import "strings"

// unsupported maps the model_type values of multimodal models whose position ids this package
// does not compute to why. Their language model may be one whose positions it does compute
// (MiniCPM-V 4.6 and 4.7 wrap a Qwen3.5 text model), which would give wrong positions for every
// image and video token: KindForModelType refuses them with the reason instead.
var unsupported = map[string]string{
	// transformers minicpmv4_6/mrope_minicpmv4_6.py @5c27dc15 and minicpmv4_7/modular_minicpmv4_7.py
	// @5a3965b1 (compute_canvas_rope_index, _compute_canvas): thumbnail and slices of an image laid
	// out on one canvas, halo positions on the <image>/<slice> markers, thumbnail coordinates by
	// torch.linspace(...).round(), video frames merged by the tokens between them.
	"minicpmv4_6": minicpmCanvas,
	"minicpmv4_7": minicpmCanvas,
}

const minicpmCanvas = "MiniCPM-V's canvas M-RoPE (compute_canvas_rope_index in transformers' minicpmv4_6 and minicpmv4_7), whose positions for the image, slice and video tokens rotary positions does not compute; Qwen3.5's get_rope_index, the text model's, would give wrong ones"

// Unsupported reports why the positions of model_type's multimodal model are not computed
// here, for a model_type whose text model may be one they are computed for.
func Unsupported(modelType string) (string, bool) {
	why, ok := unsupported[strings.TrimSuffix(modelType, "_text")]
	return why, ok
}
