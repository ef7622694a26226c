"""matplotlib for the lecture-code runner's child: the lecture's plotting lines
(`plt.plot(xs, ys)`) run and draw nothing -- the studio draws graphs, not plots."""
