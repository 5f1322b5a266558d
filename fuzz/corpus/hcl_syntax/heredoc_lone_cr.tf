a = <<EOF
bc
EOF
