module github.com/rotary-go/rotary

go 1.26.0
