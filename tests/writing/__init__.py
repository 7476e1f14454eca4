"""Writing documents and task records: atomic, in style, and converted to ATIF and back."""
