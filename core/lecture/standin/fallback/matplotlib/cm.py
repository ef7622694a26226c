"""`plt.cm.Spectral`, `cm.jet`...: a colormap is its name here; the studio colours it
(core/lecture/colormaps.py)."""


class Colormap:
    def __init__(self, name):
        self.name = name

    def __call__(self, x):
        from core.lecture.colormaps import rgba

        return rgba(self.name, x)

    def __repr__(self):
        return f"<colormap {self.name!r}>"


def get_cmap(name=None, lut=None):
    return name if isinstance(name, Colormap) else Colormap(name or "viridis")


def __getattr__(name):  # cm.Spectral, cm.jet, cm.coolwarm_r ...
    if name.startswith("__"):
        raise AttributeError(name)
    return Colormap(name)
