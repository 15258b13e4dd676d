"""Fashion-MNIST loader: reads Debian's dataset-fashion-mnist idx.gz files with numpy.

Images come back as uint8 (N, 28, 28), labels as uint8 (N,). The demo model is
fed raw pixels / 255 as float32 NCHW 1x1x28x28 (see models/README.md).
"""
import gzip
import os

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]

_FILES = {
    ("train", "images"): "train-images-idx3-ubyte.gz",
    ("train", "labels"): "train-labels-idx1-ubyte.gz",
    ("test", "images"): "t10k-images-idx3-ubyte.gz",
    ("test", "labels"): "t10k-labels-idx1-ubyte.gz",
}


def read_idx_gz(path):
    """Reads one idx file (gzip-compressed). Only the uint8 element type (0x08) is used here."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path}: not an idx file (bad magic {data[:4].hex()})")
    if data[2] != 0x08:
        raise ValueError(f"{path}: element type 0x{data[2]:02x} is not uint8 (0x08)")
    ndim = data[3]
    header = 4 + 4 * ndim
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    count = int(np.prod(dims)) if dims else 1
    if len(data) != header + count:
        raise ValueError(f"{path}: {len(data) - header} data bytes, dims {dims} need {count}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(dims)


def load(split, data_dir=None):
    """Returns (images uint8 (N,28,28), labels uint8 (N,)) for split 'train' or 'test'."""
    d = data_dir or os.environ.get("FASHION_MNIST_DIR", DEFAULT_DIR)
    images = read_idx_gz(os.path.join(d, _FILES[(split, "images")]))
    labels = read_idx_gz(os.path.join(d, _FILES[(split, "labels")]))
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{d}: {images.shape[0]} {split} images but {labels.shape[0]} labels")
    return images, labels


def normalise(images):
    """uint8 (N,28,28) -> float32 (N,1,28,28) in [0,1]: the model's input convention."""
    return (images.astype(np.float32) / np.float32(255.0))[:, None, :, :]
