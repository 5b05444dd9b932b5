"""Trains the bundled digits MLP (64 -> 128 -> ReLU -> 10) on scikit-learn's digits data set.

Run with Debian's Python (it sees python3-sklearn):  /usr/bin/python3 train.py
Writes, next to this script:
  params.npz   w0 (128, 64), b0 (128,), w1 (10, 128), b1 (10,)  float32, torch.nn.Linear layout
  test_x.npy   (360, 64) float32, pixels scaled to [0, 1]
  test_y.npy   (360,) int64 labels
  reference.npy (360, 10) float32 logits computed with NumPy from the float32 weights
and prints the test accuracy. Everything is seeded, so reruns give the same files.
"""
import os

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0, stratify=y)
    clf = MLPClassifier(hidden_layer_sizes=(128,), activation="relu", max_iter=400, random_state=0)
    clf.fit(x_train, y_train)
    # Contiguous (row-major) copies: coefs_[i].T alone is a Fortran-ordered view.
    w0 = np.ascontiguousarray(clf.coefs_[0].T, dtype=np.float32)
    b0 = clf.intercepts_[0].astype(np.float32)
    w1 = np.ascontiguousarray(clf.coefs_[1].T, dtype=np.float32)
    b1 = clf.intercepts_[1].astype(np.float32)
    logits = np.maximum(x_test @ w0.T + b0, 0) @ w1.T + b1
    accuracy = float((logits.argmax(axis=1) == y_test).mean())
    np.savez(os.path.join(HERE, "params.npz"), w0=w0, b0=b0, w1=w1, b1=b1)
    np.save(os.path.join(HERE, "test_x.npy"), x_test)
    np.save(os.path.join(HERE, "test_y.npy"), y_test)
    np.save(os.path.join(HERE, "reference.npy"), logits.astype(np.float32))
    print(f"digits MLP: {len(x_train)} train / {len(x_test)} test samples, test accuracy {accuracy:.4f}")


if __name__ == "__main__":
    main()
