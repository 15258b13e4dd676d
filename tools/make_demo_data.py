"""Writes the Fashion-MNIST test set in the flat formats the C demo reads.

    python tools/make_demo_data.py OUTDIR

OUTDIR/test-images.f32  10000 x 1 x 28 x 28 float32, little-endian, no header,
                        pixels / 255 (image i at byte offset i * 3136)
OUTDIR/test-labels.u8   10000 uint8 class indices 0..9, no header
OUTDIR/classes.txt      the 10 class names, one per line, in index order
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fashion_mnist  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = sys.argv[1]
    try:
        images, labels = fashion_mnist.load("test")
        os.makedirs(out, exist_ok=True)
        x = fashion_mnist.normalise(images).astype("<f4")
        x.tofile(os.path.join(out, "test-images.f32"))
        labels.astype(np.uint8).tofile(os.path.join(out, "test-labels.u8"))
        with open(os.path.join(out, "classes.txt"), "w") as f:
            f.write("\n".join(fashion_mnist.CLASSES) + "\n")
    except (OSError, ValueError) as e:
        print(f"make_demo_data: {e}", file=sys.stderr)
        return 1
    print(f"{out}: {x.shape[0]} images {list(x.shape[1:])} float32 (/255), labels uint8, classes.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
