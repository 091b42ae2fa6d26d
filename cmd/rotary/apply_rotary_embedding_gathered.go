package main

import ()

func init() { goldenMakers["rotary_embedding_gathered"] = goldenQueryKey }
