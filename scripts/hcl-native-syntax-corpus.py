#!/usr/bin/env python3
"""Makes conformance/hcl_native_syntax.json: HCL native syntax as
Terraform reads it, asked of the real `terraform` (1.11.4; on the PATH, or
$TERRAFORM).

    python3 scripts/hcl-native-syntax-corpus.py

For every case, `terraform fmt -no-color -` reads the text on stdin: it
parses it with hclsyntax and reports syntax errors only (no schema, no
style), exit 0 for text it reads and 2 for text it refuses, every error's
summary and line, sorted by position as Terraform shows diagnostics. For a
refused text, `terraform validate -json` in a directory holding it as
`main.tf` gives the same errors, unsorted, with their columns and byte
offsets: the first error is the one of them that sorts first (the generator
checks that it is the one fmt printed first). The cases are the hand-written ones below, every
prefix of two sample files (`cut`: the file cut after that many bytes, so
every construct is seen unterminated at the end of the file), and
mutations of the samples made by a seeded random generator (a byte deleted,
a character inserted or a span repeated), so running this again gives the
same inputs. Run by config/tests/hcl_syntax.rs.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

TERRAFORM = os.environ.get("TERRAFORM", "terraform")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance", "hcl_native_syntax.json")

# A sample configuration with every construct of the native syntax.
RICH = r'''# A comment
// Another comment
/* A block
   comment */
terraform {
  required_version = ">= 1.0"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    google = { source = "hashicorp/google", version = ">= 4" }
  }
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

locals {
  n      = 1 + 2 * 3 - 4 / 5 % 6
  cmp    = 1 < 2 && 2 <= 3 || 3 > 4 && 4 >= 5 || 1 == 1 && 1 != 2
  neg    = -1
  not    = !true
  f      = 1.5e3
  g      = 0.25
  e      = 1E-3
  s      = "a \"quoted\" \\ string\n\t\u00e9\U0001F600 $${not} %%{not}"
  t      = "hello ${var.name}!"
  d      = "%{ if var.x }yes%{ else }no%{ endif }"
  l      = "%{ for i, v in var.list ~}${i}=${v} %{~ endfor }"
  strip  = "a ${~ "b" ~} c"
  nul    = null
  tup    = [1, "two", [3], { four = 4 },]
  obj    = { a = 1, "b" = 2, (local.k) = 3, c : 4 }
  multi  = {
    a = 1
    b = 2,
    c = 3
  }
  cond   = var.x ? "yes" : "no"
  nested = var.a ? var.b ? 1 : 2 : 3
  fort   = [for x in var.list : upper(x) if x != ""]
  foro   = { for k, v in var.map : k => v... if v != null }
  splat  = var.list[*].id
  splat2 = var.list.*.id
  idx    = var.list[0].name["key"]
  legacy = var.list.0.name
  call   = concat(var.a, var.b...)
  ns     = provider::aws::arn_parse("arn")
  paren  = (1 + 2) * 3
  uni    = var.naïve
  dash   = var.foo-bar
  hd     = <<EOT
heredoc ${var.x}
%{ if true }line%{ endif }
EOT
  hd2    = <<-EOT
    indented
      more
    EOT
}

resource "aws_instance" "web" {
  provider = aws.west
  ami      = "ami-123"

  tags = {
    Name = "web"
  }

  lifecycle {
    create_before_destroy = true
  }

  dynamic "ebs" {
    for_each = var.disks
    content {
      size = ebs.value
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.0.0"
}

data "aws_ami" "x" {}
one "line" { a = 1 }
ident_label x y { }
'''

# A smaller sample of the shapes that nest.
NESTED = r'''a = {
  b = [
    for x in [1, 2] : {
      c = "${x}-${join(",", [for y in [x] : y])}"
      d = x > 1 ? { e = f(x) } : null
    }
  ]
  g = <<-EOF
    ${a.b[*].c}
    %{ for k in [1] }
    ${k}
    %{ endfor }
    EOF
}
'''

CASES = [
    # Empty and trivial texts.
    ("empty", ""),
    ("newline", "\n"),
    ("spaces", "   \n  \n"),
    ("crlf", "a = 1\r\nb = 2\r\n"),
    ("lone_cr", "a = 1\rb = 2\n"),
    ("bom", "\ufeffa = 1\n"),
    ("no_final_newline", "a = 1"),
    ("tab_indent", "a {\n\tb = 1\n}\n"),
    ("tab_between", "a\t=\t1\n"),
    # Comments.
    ("hash_comment", "# x\na = 1 # y\n"),
    ("slash_comment", "// x\na = 1 // y\n"),
    ("block_comment", "/* x */ a = 1 /* y */\n"),
    ("block_comment_multiline_after_attr", "a = 1 /* x\n*/\nb = 2\n"),
    ("block_comment_multiline_in_attr", "a = /* x\n */ 1\n"),
    ("unterminated_block_comment", "a = 1\n/* x\n"),
    ("unterminated_block_comment_start", "/*"),
    ("comment_at_eof", "a = 1 # x"),
    ("comment_crlf", "a = 1 # x\r\nb = 2\r\n"),
    ("comment_only", "# only\n"),
    ("block_comment_nested_open", "/* /* */ a = 1\n"),
    ("comment_in_object", "a = {\n  # c\n  b = 1 // d\n  /* e */ c = 2\n}\n"),
    ("comment_in_tuple", "a = [\n  1, # one\n  2, // two\n]\n"),
    ("comment_after_block_open", "a { # c\n  b = 1\n}\n"),
    ("comment_after_block_close", "a {\n} # c\n"),
    ("slash_alone", "a = 1 / 2\n"),
    # Attributes.
    ("attr", "a = 1\n"),
    ("attr_no_space", "a=1\n"),
    ("attr_twice", "a = 1\na = 2\n"),
    ("attr_twice_in_block", "b {\n  a = 1\n  a = 2\n}\n"),
    ("attr_twice_separate_blocks", "b {\n  a = 1\n}\nb {\n  a = 2\n}\n"),
    ("attr_and_block_same_name", "a = 1\na {}\n"),
    ("attr_missing_value", "a =\n"),
    ("attr_missing_value_eof", "a ="),
    ("attr_missing_equals", "a 1\n"),
    ("attr_two_on_line", "a = 1 b = 2\n"),
    ("attr_comma", "a = 1,\nb = 2\n"),
    ("attr_quoted_name", "\"a\" = 1\n"),
    ("attr_number_name", "1 = 1\n"),
    ("attr_colon", "a : 1\n"),
    ("attr_semicolon", "a = 1;\n"),
    ("attr_dash_name", "a-b = 1\n"),
    ("attr_underscore_name", "_a = 1\n"),
    ("attr_dash_start", "-a = 1\n"),
    ("attr_unicode_name", "naïve = 1\nπ = 2\n日本 = 3\n"),
    ("attr_unicode_combining", "e\u0301 = 1\n"),
    ("attr_emoji_name", "\U0001F600 = 1\n"),
    ("attr_value_then_newline_in_parens", "a = (1\n+ 2)\n"),
    ("attr_value_newline_after_operator", "a = 1 +\n2\n"),
    ("attr_value_newline_before_operator", "a = 1\n+ 2\n"),
    ("attr_only_ident", "a\n"),
    ("attr_only_ident_eof", "a"),
    # Blocks.
    ("block_empty", "a {}\n"),
    ("block_empty_multiline", "a {\n}\n"),
    ("block_labels", "a \"b\" \"c\" {}\n"),
    ("block_ident_labels", "a b c {}\n"),
    ("block_mixed_labels", "a \"b\" c \"d\" {}\n"),
    ("block_label_escapes", "a \"b\\\"c\\n\" {}\n"),
    ("block_label_template", "a \"${b}\" {}\n"),
    ("block_label_directive", "a \"%{if x}y%{endif}\" {}\n"),
    ("block_label_unterminated", "a \"b {}\n"),
    ("block_label_unterminated_eof", "a \"b"),
    ("block_label_number", "a 1 {}\n"),
    ("block_label_heredoc", "a <<EOF\nx\nEOF\n{}\n"),
    ("block_nested", "a {\n  b {\n    c {\n    }\n  }\n}\n"),
    ("block_unclosed", "a {\n  b = 1\n"),
    ("block_unclosed_nested", "a {\n  b {\n  }\n"),
    ("block_extra_close", "a {\n}\n}\n"),
    ("block_close_same_line", "a {\n  b = 1 }\n"),
    ("block_open_next_line", "a\n{\n}\n"),
    ("block_equals", "a = {\n  b = 1\n}\nc \"d\" = {}\n"),
    ("block_after_block_same_line", "a {} b {}\n"),
    ("block_close_then_attr", "a {\n} b = 1\n"),
    ("block_one_line", "a { b = 1 }\n"),
    ("block_one_line_two_attrs", "a { b = 1, c = 2 }\n"),
    ("block_one_line_two_attrs_space", "a { b = 1 c = 2 }\n"),
    ("block_one_line_nested_block", "a { b {} }\n"),
    ("block_one_line_nested_block_label", "a { b \"c\" {} }\n"),
    ("block_one_line_then_newline", "a { b = 1\n}\n"),
    ("block_one_line_unclosed", "a { b = 1"),
    ("block_one_line_error", "a { b = }\n"),
    ("block_one_line_error_blank_after", "a { b = 1 + }\n\nc = 2\n"),
    ("block_one_line_label_body", "a \"x\" { b = \"c\" }\n"),
    ("block_one_line_object", "a { b = { c = 1 } }\n"),
    ("block_one_line_comment", "a { b = 1 } # c\n"),
    ("block_one_line_no_attr", "a { 1 }\n"),
    ("block_missing_newline_after", "a {}b = 1\n"),
    ("block_attr_inside_no_newline_end", "a {\n  b = 1}\n"),
    ("block_label_only", "a \"b\"\n"),
    ("block_label_then_eof", "a \"b\""),
    ("block_comma_label", "a \"b\", \"c\" {}\n"),
    ("block_body_starts_with_string", "a {\n  \"b\" = 1\n}\n"),
    ("block_body_starts_with_number", "a {\n  1\n}\n"),
    ("block_body_stray_close_bracket", "a {\n  ]\n}\n"),
    ("top_level_close_brace", "}\n"),
    ("top_level_open_brace", "{\n"),
    ("top_level_string", "\"a\"\n"),
    ("top_level_number", "1\n"),
    ("top_level_operator", "+\n"),
    ("dynamic_block", "resource \"a\" \"b\" {\n  dynamic \"c\" {\n    for_each = x\n    content {\n      d = c.value\n    }\n  }\n}\n"),
    # Numbers.
    ("number_int", "a = 42\n"),
    ("number_zero", "a = 0\n"),
    ("number_leading_zero", "a = 007\n"),
    ("number_fraction", "a = 3.14\n"),
    ("number_exponent", "a = 1e5\n"),
    ("number_exponent_upper", "a = 1E5\n"),
    ("number_exponent_sign", "a = 1e+5\nb = 1e-5\n"),
    ("number_dot_exponent", "a = 1.e5\n"),
    ("number_leading_dot", "a = .5\n"),
    ("number_trailing_dot", "a = 1.\n"),
    ("number_two_dots", "a = 1.2.3\n"),
    ("number_double_dot", "a = 1..2\n"),
    ("number_exponent_no_digits", "a = 1e\n"),
    ("number_exponent_sign_no_digits", "a = 1e+\n"),
    ("number_exponent_twice", "a = 1e5e5\n"),
    ("number_exponent_dot", "a = 1e5.5\n"),
    ("number_huge", "a = 123456789012345678901234567890123456789012345678901234567890\n"),
    ("number_huge_exponent", "a = 1e99999\n"),
    ("number_giant_exponent", "a = 1e9999999999\n"),
    ("number_hex", "a = 0x10\n"),
    ("number_then_ident", "a = 1x\n"),
    ("number_negative", "a = -1\n"),
    ("number_plus", "a = +1\n"),
    ("number_dot_dot_dot", "a = 1...\n"),
    # Strings.
    ("string_empty", "a = \"\"\n"),
    ("string_simple", "a = \"b\"\n"),
    ("string_escapes", "a = \"\\n\\r\\t\\\"\\\\\"\n"),
    ("string_unicode_escapes", "a = \"\\u00e9\\U0001F600\"\n"),
    ("string_bad_escape", "a = \"\\q\"\n"),
    ("string_short_u", "a = \"\\u12\"\n"),
    ("string_short_big_u", "a = \"\\U1234\"\n"),
    ("string_u_surrogate", "a = \"\\ud800\"\n"),
    ("string_big_u_too_large", "a = \"\\U00110000\"\n"),
    ("string_u_then_more_hex", "a = \"\\u12345\"\n"),
    ("string_backslash_at_end", "a = \"\\\"\n"),
    ("string_backslash_newline", "a = \"a\\\nb\"\n"),
    ("string_backslash_eof", "a = \"\\"),
    ("string_newline", "a = \"b\nc\"\n"),
    ("string_crlf", "a = \"b\r\nc\"\n"),
    ("string_unterminated", "a = \"b\n"),
    ("string_unterminated_eof", "a = \"b"),
    ("string_dollar_end", "a = \"b$\"\n"),
    ("string_percent_end", "a = \"b%\"\n"),
    ("string_dollar_eof", "a = \"b$"),
    ("string_double_dollar", "a = \"$$\"\n"),
    ("string_escaped_interp", "a = \"$${b}\"\n"),
    ("string_escaped_directive", "a = \"%%{b}\"\n"),
    ("string_triple_dollar", "a = \"$$${b}\"\n"),
    ("string_dollar_space_brace", "a = \"$ {b}\"\n"),
    ("string_curly_quotes", "a = \u201cb\u201d\n"),
    ("string_single_quotes", "a = 'b'\n"),
    ("string_backtick", "a = `b`\n"),
    ("string_unicode", "a = \"日本語 é \U0001F600\"\n"),
    ("string_tab_inside", "a = \"b\tc\"\n"),
    ("string_brace_inside", "a = \"{ } [ ]\"\n"),
    ("string_adjacent", "a = \"b\" \"c\"\n"),
    # Templates.
    ("interp", "a = \"${b}\"\n"),
    ("interp_text", "a = \"x ${b} y\"\n"),
    ("interp_only_passthrough", "a = \"${1 + 2}\"\n"),
    ("interp_strip", "a = \"x ${~ b ~} y\"\n"),
    ("interp_nested_string", "a = \"${\"${b}\"}\"\n"),
    ("interp_object", "a = \"${ {b = 1} }\"\n"),
    ("interp_object_no_space", "a = \"${{b = 1}}\"\n"),
    ("interp_empty", "a = \"${}\"\n"),
    ("interp_unclosed", "a = \"${b\"\n"),
    ("interp_unclosed_eof", "a = \"${b"),
    ("interp_extra", "a = \"${b c}\"\n"),
    ("interp_colon", "a = \"${b:c}\"\n"),
    ("interp_newlines", "a = \"${\nb\n}\"\n"),
    ("interp_heredoc_inside", "a = \"${<<EOF\nx\nEOF\n}\"\n"),
    ("interp_close_tilde_mismatch", "a = \"${b ~}\"\n"),
    ("interp_brace_close_in_object", "a = { b = 1 ~}\n"),
    ("interp_in_key", "a = { \"${b}\" = 1 }\n"),
    ("directive_if", "a = \"%{if b}c%{endif}\"\n"),
    ("directive_if_else", "a = \"%{ if b }c%{ else }d%{ endif }\"\n"),
    ("directive_for", "a = \"%{for x in y}${x}%{endfor}\"\n"),
    ("directive_for_key", "a = \"%{for k, v in y}${k}%{endfor}\"\n"),
    ("directive_strip", "a = \"x %{~ if b ~} y %{~ endif ~} z\"\n"),
    ("directive_unclosed_if", "a = \"%{if b}c\"\n"),
    ("directive_unclosed_for", "a = \"%{for x in y}c\"\n"),
    ("directive_stray_endif", "a = \"c%{endif}\"\n"),
    ("directive_stray_else", "a = \"c%{else}\"\n"),
    ("directive_stray_endfor", "a = \"c%{endfor}\"\n"),
    ("directive_double_else", "a = \"%{if b}c%{else}d%{else}e%{endif}\"\n"),
    ("directive_endfor_for_if", "a = \"%{if b}c%{endfor}\"\n"),
    ("directive_endif_for_for", "a = \"%{for x in y}c%{endif}\"\n"),
    ("directive_else_in_for", "a = \"%{for x in y}c%{else}%{endfor}\"\n"),
    ("directive_unknown", "a = \"%{iff b}c%{endif}\"\n"),
    ("directive_keyword_prefix", "a = \"%{iffy}\"\n"),
    ("directive_no_keyword", "a = \"%{1}\"\n"),
    ("directive_empty", "a = \"%{}\"\n"),
    ("directive_for_no_var", "a = \"%{for in y}%{endfor}\"\n"),
    ("directive_for_no_in", "a = \"%{for x y}%{endfor}\"\n"),
    ("directive_for_comma_no_value", "a = \"%{for x, in y}%{endfor}\"\n"),
    ("directive_extra", "a = \"%{if b c}%{endif}\"\n"),
    ("directive_else_extra", "a = \"%{if b}%{else c}%{endif}\"\n"),
    ("directive_nested", "a = \"%{for x in y}%{if x}${x}%{endif}%{endfor}\"\n"),
    ("directive_unclosed_eof", "a = \"%{if b"),
    ("directive_error_then_structure", "a = \"%{endif}${1.2.3}\"\n"),
    ("template_error_order", "a = \"${1.2.3} %{endif}\"\n"),
    # Heredocs.
    ("heredoc", "a = <<EOF\nb\nEOF\n"),
    ("heredoc_indented", "a = <<-EOF\n    b\n  c\n    EOF\n"),
    ("heredoc_empty", "a = <<EOF\nEOF\n"),
    ("heredoc_empty_indented", "a = <<-EOF\n  EOF\n"),
    ("heredoc_end_indented", "a = <<EOF\nb\n   EOF\n"),
    ("heredoc_end_trailing_space", "a = <<EOF\nb\nEOF   \n"),
    ("heredoc_end_eof", "a = <<EOF\nb\nEOF"),
    ("heredoc_unterminated", "a = <<EOF\nb\n"),
    ("heredoc_unterminated_eof", "a = <<EOF\nb"),
    ("heredoc_no_newline", "a = <<EOF b\nEOF\n"),
    ("heredoc_space_before_newline", "a = <<EOF \nb\nEOF\n"),
    ("heredoc_interp", "a = <<EOF\n${b}\nEOF\n"),
    ("heredoc_directive", "a = <<EOF\n%{if b}\nc\n%{endif}\nEOF\n"),
    ("heredoc_marker_in_interp", "a = <<EOF\n${\"\nEOF\n\"}\nEOF\n"),
    ("heredoc_marker_after_interp", "a = <<EOF\n${b}EOF\nEOF\n"),
    ("heredoc_marker_prefix", "a = <<EOF\nEOFX\nEOF\n"),
    ("heredoc_other_marker", "a = <<END\nEOF\nEND\n"),
    ("heredoc_crlf", "a = <<EOF\r\nb\r\nEOF\r\n"),
    ("heredoc_lone_cr", "a = <<EOF\nb\rc\nEOF\n"),
    ("heredoc_dollar_end_of_line", "a = <<EOF\ncost $\nEOF\n"),
    ("heredoc_dollar_blank", "a = <<EOF\n$\n\nEOF\n"),
    ("heredoc_percent_end_of_line", "a = <<EOF\n100%\nEOF\n"),
    ("heredoc_dollar_eof", "a = <<EOF\n$"),
    ("heredoc_escaped_interp", "a = <<EOF\n$${b}\nEOF\n"),
    ("heredoc_backslash", "a = <<EOF\n\\n \\q\nEOF\n"),
    ("heredoc_quote", "a = <<EOF\n\"\nEOF\n"),
    ("heredoc_two", "a = <<A\nx\nA\nb = <<B\ny\nB\n"),
    ("heredoc_nested", "a = <<A\n${<<B\ny\nB\n}\nA\n"),
    ("heredoc_in_tuple", "a = [<<EOF\nx\nEOF\n, 1]\n"),
    ("heredoc_in_call", "a = f(<<EOF\nx\nEOF\n)\n"),
    ("heredoc_then_attr_same_line", "a = <<EOF\nx\nEOF b = 1\n"),
    ("heredoc_dash_marker", "a = <<-EOF-X\nx\nEOF-X\n"),
    ("heredoc_unicode_marker", "a = <<ÉOF\nx\nÉOF\n"),
    ("heredoc_lower_marker", "a = <<eof\nx\neof\n"),
    ("heredoc_number_marker", "a = <<1\nx\n1\n"),
    ("heredoc_tab_end", "a = <<EOF\nx\n\tEOF\n"),
    ("heredoc_nbsp_end", "a = <<EOF\nx\nEOF\u00a0\n"),
    ("heredoc_as_operand", "a = 1 + <<EOF\nx\nEOF\n"),
    ("heredoc_strip", "a = <<EOF\nx ${~ b ~} y\nEOF\n"),
    ("double_less", "a = 1 << 2\n"),
    # Operators.
    ("ops_arith", "a = 1 + 2 - 3 * 4 / 5 % 6\n"),
    ("ops_compare", "a = 1 < 2 == 2 > 1 != 1 <= 2 >= 3\n"),
    ("ops_logic", "a = !b && c || !!d\n"),
    ("ops_unary_chain", "a = - - -1\n"),
    ("ops_missing_rhs", "a = 1 +\n"),
    ("ops_missing_rhs_eof", "a = 1 *"),
    ("ops_double", "a = 1 + + 2\n"),
    ("ops_star_star", "a = 2 ** 3\n"),
    ("ops_bitwise_and", "a = 1 & 2\n"),
    ("ops_bitwise_or", "a = 1 | 2\n"),
    ("ops_bitwise_xor", "a = 1 ^ 2\n"),
    ("ops_bitwise_not", "a = ~1\n"),
    ("ops_assign_in_expr", "a = b = c\n"),
    ("ops_fat_arrow", "a = b => c\n"),
    ("ops_question_only", "a = b ?\n"),
    ("ops_cond_missing_false", "a = b ? c\n"),
    ("ops_cond_missing_false_paren", "a = (b ? c)\n"),
    ("ops_cond_newlines_in_parens", "a = (\n  b\n  ? c\n  : d\n)\n"),
    ("ops_cond_newline", "a = b\n? c : d\n"),
    ("ops_cond_right_assoc", "a = b ? c : d ? e : f\n"),
    ("ops_cond_in_true", "a = b ? c ? d : e : f\n"),
    ("ops_cond_binary", "a = b + 1 ? c * 2 : d - 3\n"),
    ("ops_not_equal_spaces", "a = 1 ! = 2\n"),
    ("ops_ellipsis_alone", "a = ...\n"),
    ("ops_double_colon_alone", "a = ::\n"),
    ("ops_unary_traversal", "a = -b.c[0]\n"),
    ("ops_unary_then_binary", "a = -1 + 2\n"),
    # Traversals, splats, indexes.
    ("trav_attr", "a = b.c.d\n"),
    ("trav_index", "a = b[0][\"x\"][c]\n"),
    ("trav_legacy", "a = b.0.c\n"),
    ("trav_legacy_chain", "a = b.0.1\n"),
    ("trav_legacy_splat_chain", "a = b.*.c.0.1\n"),
    ("trav_splat_attr", "a = b.*.c\n"),
    ("trav_splat_attr_index", "a = b.*.c[0]\n"),
    ("trav_splat_full", "a = b[*].c[0]\n"),
    ("trav_splat_nested_full", "a = b[*].c[*].d\n"),
    ("trav_splat_attr_nested", "a = b.*.c.*\n"),
    ("trav_splat_missing_bracket", "a = b[*.c\n"),
    ("trav_dot_nothing", "a = b.\n"),
    ("trav_dot_number_start", "a = b.0\n"),
    ("trav_dot_string", "a = b.\"c\"\n"),
    ("trav_dot_bracket", "a = b.[0]\n"),
    ("trav_index_unclosed", "a = b[0\n"),
    ("trav_index_newlines", "a = b[\n0\n]\n"),
    ("trav_index_empty", "a = b[]\n"),
    ("trav_index_two", "a = b[0, 1]\n"),
    ("trav_on_literal", "a = [1][0]\n"),
    ("trav_on_call", "a = f(1).b\n"),
    ("trav_on_string", "a = \"b\".c\n"),
    ("trav_on_paren", "a = (b).c\n"),
    ("trav_space_before_dot", "a = b .c\n"),
    ("trav_newline_before_dot", "a = b\n.c\n"),
    ("trav_splat_then_splat_attr", "a = b[*].*.c\n"),
    ("trav_number_attr_float", "a = b.1.5\n"),
    # Function calls.
    ("call", "a = f()\n"),
    ("call_args", "a = f(1, 2, 3)\n"),
    ("call_trailing_comma", "a = f(1, 2,)\n"),
    ("call_expand", "a = f(b...)\n"),
    ("call_expand_not_last", "a = f(b..., c)\n"),
    ("call_expand_trailing_comma", "a = f(b...,)\n"),
    ("call_newlines", "a = f(\n  1,\n  2\n)\n"),
    ("call_missing_comma", "a = f(1 2)\n"),
    ("call_unclosed", "a = f(1\n"),
    ("call_unclosed_eof", "a = f(1,"),
    ("call_leading_comma", "a = f(, 1)\n"),
    ("call_double_comma", "a = f(1,, 2)\n"),
    ("call_namespaced", "a = provider::aws::f(1)\n"),
    ("call_namespaced_two", "a = a::b()\n"),
    ("call_namespaced_missing_name", "a = a::(1)\n"),
    ("call_namespaced_missing_paren", "a = a::b\n"),
    ("call_namespaced_trailing", "a = a::b::\n"),
    ("call_space_before_paren", "a = f (1)\n"),
    ("call_newline_before_paren", "a = f\n(1)\n"),
    ("call_nested", "a = f(g(h(1)))\n"),
    ("call_keyword_names", "a = for(1)\nb = if(2)\nc = true(3)\n"),
    # Tuples.
    ("tuple_empty", "a = []\n"),
    ("tuple", "a = [1, 2]\n"),
    ("tuple_trailing_comma", "a = [1, 2,]\n"),
    ("tuple_newlines", "a = [\n  1,\n  2\n]\n"),
    ("tuple_newline_no_comma", "a = [\n  1\n  2\n]\n"),
    ("tuple_missing_comma", "a = [1 2]\n"),
    ("tuple_unclosed", "a = [1, 2\n"),
    ("tuple_unclosed_eof", "a = [1,"),
    ("tuple_leading_comma", "a = [, 1]\n"),
    ("tuple_double_comma", "a = [1,, 2]\n"),
    ("tuple_nested", "a = [[1], [[2]]]\n"),
    ("tuple_wrong_close", "a = [1, 2)\n"),
    ("tuple_ellipsis", "a = [b...]\n"),
    # Objects.
    ("object_empty", "a = {}\n"),
    ("object", "a = { b = 1, c = 2 }\n"),
    ("object_colon", "a = { b : 1 }\n"),
    ("object_newlines", "a = {\n  b = 1\n  c = 2\n}\n"),
    ("object_newline_and_comma", "a = {\n  b = 1,\n  c = 2,\n}\n"),
    ("object_missing_separator", "a = { b = 1 c = 2 }\n"),
    ("object_missing_value", "a = { b }\n"),
    ("object_missing_value_comma", "a = { b, c }\n"),
    ("object_missing_value_newline", "a = {\n  b\n}\n"),
    ("object_missing_equals_ident", "a = { b c }\n"),
    ("object_missing_equals_number", "a = { b 1 }\n"),
    ("object_dotted_key", "a = { b.c = 1 }\n"),
    ("object_number_dot_key", "a = { foo1.2_bar = 1 }\n"),
    ("object_quoted_key", "a = { \"b c\" = 1 }\n"),
    ("object_paren_key", "a = { (b) = 1 }\n"),
    ("object_number_key", "a = { 1 = 2 }\n"),
    ("object_template_key", "a = { \"${b}\" = 1 }\n"),
    ("object_call_key", "a = { f(1) = 2 }\n"),
    ("object_duplicate_key", "a = { b = 1, b = 2 }\n"),
    ("object_unclosed", "a = { b = 1\n"),
    ("object_unclosed_eof", "a = { b = 1"),
    ("object_unclosed_key_eof", "a = { b"),
    ("object_value_newline", "a = { b =\n1 }\n"),
    ("object_leading_comma", "a = { , b = 1 }\n"),
    ("object_double_comma", "a = { b = 1,, c = 2 }\n"),
    ("object_nested", "a = { b = { c = { d = 1 } } }\n"),
    ("object_block_inside", "a = {\n  b {\n  }\n}\n"),
    ("object_wrong_close", "a = { b = 1 ]\n"),
    ("object_keyword_keys", "a = { for = 1, if = 2, in = 3, null = 4, true = 5 }\n"),
    ("object_for_key_first", "a = { for = 1 }\n"),
    ("object_arrow", "a = { b => 1 }\n"),
    # For expressions.
    ("for_tuple", "a = [for x in y : x]\n"),
    ("for_tuple_if", "a = [for x in y : x if x > 1]\n"),
    ("for_tuple_key", "a = [for k, v in y : v]\n"),
    ("for_object", "a = {for k, v in y : k => v}\n"),
    ("for_object_group", "a = {for k, v in y : k => v...}\n"),
    ("for_object_group_if", "a = {for k, v in y : k => v... if v}\n"),
    ("for_newlines", "a = [\n  for x in y :\n  x\n  if x\n]\n"),
    ("for_object_newlines", "a = {\n  for k, v in y :\n  k => v\n}\n"),
    ("for_tuple_arrow", "a = [for k, v in y : k => v]\n"),
    ("for_tuple_group", "a = [for x in y : x...]\n"),
    ("for_object_no_arrow", "a = {for k, v in y : v}\n"),
    ("for_missing_var", "a = [for in y : 1]\n"),
    ("for_missing_in", "a = [for x y : x]\n"),
    ("for_missing_colon", "a = [for x in y x]\n"),
    ("for_missing_value_var", "a = [for x, in y : x]\n"),
    ("for_missing_body", "a = [for x in y :]\n"),
    ("for_extra", "a = [for x in y : x x]\n"),
    ("for_unclosed", "a = [for x in y : x\n"),
    ("for_unclosed_eof", "a = [for x in y : x"),
    ("for_if_missing_cond", "a = [for x in y : x if]\n"),
    ("for_nested", "a = [for x in y : [for z in x : z]]\n"),
    ("for_in_call", "a = f([for x in y : x])\n"),
    ("for_as_name", "a = [for]\n"),
    ("for_ident_value", "a = [for, 1]\n"),
    ("for_object_group_wrong_close", "a = {for k, v in y : k => v]\n"),
    ("for_three_vars", "a = [for a, b, c in y : a]\n"),
    ("for_cond_error", "a = [for x in y : x if (]\n"),
    # Parentheses.
    ("paren", "a = (1)\n"),
    ("paren_nested", "a = ((((1))))\n"),
    ("paren_unclosed", "a = (1\n"),
    ("paren_unclosed_eof", "a = (1"),
    ("paren_empty", "a = ()\n"),
    ("paren_two", "a = (1 2)\n"),
    ("paren_extra_close", "a = (1))\n"),
    ("paren_newlines", "a = (\n  1\n  +\n  2\n)\n"),
    ("paren_unbalanced_then_more", "a = (1\nb = 2\n"),
    # Literals and keywords.
    ("bools_null", "a = true\nb = false\nc = null\n"),
    ("keyword_traversal", "a = true.x\nb = null[0]\n"),
    ("keyword_call_like", "a = null()\n"),
    # Stray and invalid characters.
    ("stray_at", "a = @\n"),
    ("stray_at_top", "@\n"),
    ("stray_dollar", "a = $b\n"),
    ("stray_hash_in_expr", "a = 1 # 2\n"),
    ("stray_backslash", "a = \\\n"),
    ("stray_question", "a = ?\n"),
    ("stray_unicode_symbol", "a = \u2192\n"),
    ("stray_nbsp", "a =\u00a01\n"),
    ("stray_zero_width_space", "a = \u200b1\n"),
    ("stray_nul", "a = 1\x00\n"),
    ("stray_control", "a = 1\x01\n"),
    ("stray_form_feed", "a = 1\x0c\n"),
    ("stray_vertical_tab", "a = 1\x0b\n"),
    ("stray_after_error", "a = (\nb = @\n"),
    ("stray_semicolon_twice", "a = 1; b = 2;\n"),
    ("stray_apostrophes", "a = 'b' 'c'\n"),
    ("stray_invalid_in_comment", "# @ ` ' ;\na = 1\n"),
    ("stray_invalid_in_string", "a = \"@ ` ' ; \u201c\"\n"),
    ("stray_invalid_in_heredoc", "a = <<EOF\n@ ` ' ;\nEOF\n"),
    ("stray_tilde_brace", "a = ~}\n"),
    ("stray_tilde_brace_top", "~}\n"),
    ("stray_close_brace_top_after_block", "a {\n}\n}\nb = @\n"),
    # Real-world shapes.
    ("optional_object_type", "variable \"x\" {\n  type = list(object({\n    a = optional(string, \"x\")\n    b = optional(list(object({ c = optional(map(string), {}) })), [])\n  }))\n  default = []\n}\n"),
    ("validation_block", "variable \"x\" {\n  validation {\n    condition     = length(var.x) > 0 && can(regex(\"^a\", var.x))\n    error_message = \"Bad: ${var.x}.\"\n  }\n}\n"),
    ("long_conditional", "a = var.a == null ? null : var.b != \"\" ? var.b : length(var.c) > 0 ? var.c[0] : var.d ? \"x\" : \"y\"\n"),
    ("moved_block", "moved {\n  from = aws_instance.a\n  to   = aws_instance.b[0]\n}\n"),
    ("import_block", "import {\n  to = aws_instance.a\n  id = \"i-123\"\n}\n"),
    ("check_block", "check \"c\" {\n  data \"http\" \"h\" {\n    url = \"https://example.com\"\n  }\n  assert {\n    condition     = data.http.h.status_code == 200\n    error_message = \"down\"\n  }\n}\n"),
    ("splat_conditional", "a = length(var.x) > 0 ? var.x[*].id : []\n"),
    ("try_call", "a = try(var.a.b, var.c[0], null)\n"),
    ("templatefile_call", "a = templatefile(\"${path.module}/t.tpl\", { a = 1 })\n"),
    ("lookup_nested", "a = lookup(lookup(var.m, \"a\", {}), \"b\", null)\n"),
    ("merge_for", "a = merge([for k, v in var.m : { (k) = v }]...)\n"),
    # Columns are grapheme clusters.
    ("grapheme_combining", "a = \"e\u0301\u0301\" +\n"),
    ("grapheme_emoji_modifier", "a = \"\U0001F44D\U0001F3FD\" +\n"),
    ("grapheme_flags", "a = \"\U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA\" +\n"),
    ("grapheme_zwj", "a = \"\U0001F468\u200d\U0001F469\u200d\U0001F467\" +\n"),
    ("grapheme_variation_selector", "a = \"\u2764\ufe0f\" +\n"),
    ("grapheme_devanagari", "a = \"\u0915\u094d\u0937\u093f\" +\n"),
    ("grapheme_hangul_jamo", "a = \"\u1100\u1161\u11a8\" +\n"),
    ("grapheme_thai_sara_am", "a = \"\u0e01\u0e33\" +\n"),
    ("grapheme_prepend", "a = \"\u0600\u0661\" +\n"),
    ("grapheme_identifier", "e\u0301x = 1 +\n"),
    ("grapheme_comment", "# \U0001F44D\U0001F3FD\na = 1 +\n"),
]

# Nesting as deep as tfdisco reads (hcl_syntax::MAX_NESTING, 65 536 levels
# with the attribute's own), and one level deeper, which tfdisco refuses
# and Terraform reads: `a = ` and DEPTH brackets around `1`.
NESTS = [("nest/65535", "[", "]", 65535), ("nest/65536", "[", "]", 65536)]


def mutations(name, text, count, seed):
    """Deterministic single mutations of `text`: a byte deleted, a character
    inserted, or a span repeated."""
    rng = random.Random(seed)
    inserts = list("{}[]()\"'\n=,.:?*-+!<>%$~#/\\ ax1") + ["${", "%{", "<<EOF\n", "...", "::", "=>", "\r"]
    out = []
    seen = set()
    while len(out) < count:
        at = rng.randrange(len(text) + 1)
        kind = rng.choice(["delete", "insert", "repeat"])
        if kind == "delete":
            if at >= len(text):
                continue
            n = rng.choice([1, 1, 1, 2, 3])
            case = {"of": name, "at": at, "delete": n, "insert": ""}
        elif kind == "insert":
            case = {"of": name, "at": at, "delete": 0, "insert": rng.choice(inserts)}
        else:
            n = rng.randrange(1, 12)
            piece = text[at:at + n]
            if not piece:
                continue
            case = {"of": name, "at": at, "delete": 0, "insert": piece}
        key = (case["at"], case["delete"], case["insert"])
        if key in seen:
            continue
        seen.add(key)
        out.append(case)
    return out


def apply(samples, case):
    if "nest" in case:
        n = case["nest"]
        return "a = " + n["open"] * n["depth"] + "1" + n["close"] * n["depth"] + "\n"
    base = samples[case["of"]]
    if "cut" in case:
        return base.encode()[: case["cut"]].decode("utf-8", errors="strict")
    chars = base
    return chars[: case["at"]] + case["insert"] + chars[case["at"] + case["delete"]:]


def ask(text, workdir):
    """Terraform's verdict on `text`: (exit, summary, line, column, byte, detail)."""
    env = dict(os.environ)
    env["TF_CLI_CONFIG_FILE"] = os.path.join(workdir, "empty.tfrc")
    env["CHECKPOINT_DISABLE"] = "1"
    data = text.encode()
    fmt = subprocess.run([TERRAFORM, "fmt", "-no-color", "-"], input=data, capture_output=True, env=env, cwd=workdir)
    if fmt.returncode == 0:
        return {"exit": 0}
    if fmt.returncode != 2:
        raise SystemExit(f"terraform fmt exited {fmt.returncode}: {fmt.stderr.decode(errors='replace')}")
    stderr = fmt.stderr.decode(errors="replace")
    # fmt prints every syntax error, sorted by position (Terraform sorts
    # diagnostics before showing them: tfdiags.Diagnostics.Sort, by start
    # byte, then end byte, stably).
    printed = []
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Error: "):
            on = next(l for l in lines[i + 1:] if l.strip().startswith("on <stdin> line "))
            printed.append((line[len("Error: "):], int(on.strip()[len("on <stdin> line "):].split(":")[0].split(",")[0])))
    summary, fmt_line = printed[0]
    case_dir = os.path.join(workdir, "case")
    os.makedirs(case_dir, exist_ok=True)
    with open(os.path.join(case_dir, "main.tf"), "wb") as f:
        f.write(data)
    validate = subprocess.run([TERRAFORM, "validate", "-json", "-no-color"], capture_output=True, env=env, cwd=case_dir)
    # validate -json lists the parser's errors unsorted, with the decoder's
    # after them: keep those fmt printed, and sort them as Terraform does.
    diags = [d for d in json.loads(validate.stdout)["diagnostics"] if "range" in d and (d["summary"], d["range"]["start"]["line"]) in printed]
    diags.sort(key=lambda d: (d["range"]["start"]["byte"], d["range"]["end"]["byte"]))
    diag = diags[0]
    start = diag["range"]["start"]
    if diag["summary"] != summary or start["line"] != fmt_line:
        raise SystemExit(f"fmt and validate disagree on {text!r}: {summary} line {fmt_line} vs {diag}")
    return {
        "exit": 2,
        "summary": summary,
        "detail": diag["detail"],
        "line": start["line"],
        "column": start["column"],
        "byte": start["byte"],
    }


def write(version, samples, cases):
    """The table: one case a line, each error's detail an index into
    `details` (they repeat)."""
    details = sorted({c["terraform"]["detail"] for c in cases if "detail" in c["terraform"]})
    index = {d: i for i, d in enumerate(details)}
    for c in cases:
        t = c["terraform"]
        if "detail" in t:
            t["detail"] = index[t["detail"]]
    fmt = {
        "description": (
            "HCL native syntax (hclsyntax, as HCL v2.23.0 in Terraform 1.11.4 parses it): each case's text and "
            "Terraform's verdict, made by running "
            + version
            + " (scripts/hcl-native-syntax-corpus.py; unlike the other tables here, these come from running the "
            "reference program). terraform.exit is `terraform fmt -no-color -`'s exit code on the text (0: read, "
            "2: refused); for a refused text, summary, detail (an index into details), line, column (in grapheme "
            "clusters, from 1) and byte (offset from 0) are those of the first error in Terraform's order (by "
            "position: start byte, then end byte), from `terraform validate -json`. A case has its text in input, "
            "or is made: nest is `a = `, depth times open, `1`, depth times close and a line break; from a sample, "
            "cut keeps the sample's first cut bytes and at/delete/insert replaces delete characters (Unicode "
            "scalar values) at character offset at by insert."
        ),
    }
    with open(OUT, "w") as f:
        f.write("{\n")
        f.write(f' "_format": {json.dumps(fmt, ensure_ascii=False)},\n')
        f.write(f' "samples": {json.dumps(samples, ensure_ascii=False)},\n')
        f.write(f' "details": {json.dumps(details, ensure_ascii=False, indent=1)},\n')
        f.write(' "cases": [\n')
        f.write(",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in cases))
        f.write("\n ]\n}\n")


def main():
    version = subprocess.run([TERRAFORM, "version"], capture_output=True, text=True).stdout.splitlines()[0]
    samples = {"rich": RICH, "nested": NESTED}
    cases = []
    for name, text in CASES:
        cases.append({"name": name, "input": text})
    for name, open_, close, depth in NESTS:
        cases.append({"name": name, "nest": {"open": open_, "close": close, "depth": depth}})
    for sample, text in samples.items():
        length = len(text.encode())
        for cut in range(length):
            try:
                text.encode()[:cut].decode("utf-8")
            except UnicodeDecodeError:
                continue
            cases.append({"name": f"cut/{sample}/{cut}", "of": sample, "cut": cut})
    for sample, text in samples.items():
        for i, m in enumerate(mutations(sample, text, 400 if sample == "rich" else 200, seed=sample)):
            m["name"] = f"mutation/{sample}/{i}"
            cases.append(m)
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    with tempfile.TemporaryDirectory() as workdir:
        open(os.path.join(workdir, "empty.tfrc"), "w").close()
        for i, case in enumerate(cases):
            text = case["input"] if "input" in case else apply(samples, case)
            case["terraform"] = ask(text, workdir)
            if i % 200 == 0:
                print(f"{i}/{len(cases)}", file=sys.stderr)
    write(version, samples, cases)
    print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
