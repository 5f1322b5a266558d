a = var.a == null ? null : var.b != "" ? var.b : length(var.c) > 0 ? var.c[0] : var.d ? "x" : "y"
