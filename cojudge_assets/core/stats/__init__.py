"""Statistics primitives shared by every group: metrics in the scikit-learn manner and the clustered bootstrap."""
