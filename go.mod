module github.com/rotary-go/rotary

go 1.26.0

require golang.org/x/sys v0.49.0

require golang.org/x/image v0.47.0
