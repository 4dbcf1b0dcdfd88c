"""(being written)"""
METHODS = {}
INPLACE = {}
TORCH = {}
LINALG = {}
SPECIAL = {}
