package main

import ()

func init() { goldenMakers["query_scale"] = goldenQueryScale }

// goldenQueryScale: positions [T], query [T, Hq, D]; the rule is the model's (or --query-scale's).
func goldenQueryScale(g *goldenGen) ([]goldenInput, error) {
	hq, _ := g.heads()
	pos := g.positions(1)
	return []goldenInput{{"positions", pos}, {"query", g.values("query", g.c.tokens, hq, g.spec.HeadSize)}}, nil
}
