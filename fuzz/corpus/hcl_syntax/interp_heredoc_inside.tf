a = "${<<EOF
x
EOF
}"
