module github.com/canopy/canopy-go

go 1.19
