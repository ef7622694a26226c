"""micrograd, as the lecture-code runner's child sees it: the studio's engine
stands in for micrograd's (see core/lecture/standin/README.md)."""
