package rotary

import (
	"errors"
	"fmt"

	"github.com/rotary-go/rotary/internal/errs"
)

var (
	errNotGathered    = errors.New("cos/sin: nothing gathered yet (call Embedding.Gather first)")
	errDualChunk      = errors.New("dual-chunk rope: use Embedding.DualChunk, which maps positions per query variant")
	errNotBuilt       = errors.New("rotary: the Embedding is nil or zero: build it with rotary.New")
	errNilDst         = errors.New("dst: nil *CosSin: want a CosSin to gather into")
	errNilLayersDst   = errors.New("dst: nil *LayersCosSin: want a LayersCosSin to gather into")
	errLayersNotBuilt = errors.New("rotary: the Layers is nil or zero: build it with rotary.NewLayers")
	errPerLayer       = errs.Wrapf(ErrSpec, "the spec's layers differ (per-layer rules, Spec.Local): New builds one RoPE; build layer l's with New(spec.ForLayer(l)), or every layer's with NewLayers")
	errNoRoPE         = errors.New("the spec has no RoPE (NoRoPE: a layer without position embedding): there is no cos/sin table")
)

func errTokens(got, want int) error {
	return fmt.Errorf("query: %d tokens, but cos/sin were gathered for %d positions", got, want)
}
