#!/usr/bin/perl
# modernize.pl FILE...: rewrites, in place, the C# 8/9 syntax of Codebattle's
# C# checkers and solution template that Mono's mcs (C# 7) refuses, into the
# C# 7 it means:
#
# - target-typed new: `List<List<int>> xs1 = new() {new() {1, 2}}` becomes
#   `... = new List<List<int>>() {new List<int>() {1, 2}}`: a `new()` in a
#   declaration takes the declared type, one inside its initializer the
#   element type (List<T>, HashSet<T>...: T; Dictionary<K, V>: V), and so on
#   down.  A `new()` whose type is not written in its declaration (`return
#   new();`) is left for mcs to refuse.
# - nullable reference annotations: `string?`, `object?` and `dynamic?`
#   lose the `?` (they change no code, only warnings).
# - with --usings (the solution), the implicit usings of a .NET console
#   project (System, System.IO, System.Collections.Generic, System.Linq,
#   System.Threading, System.Threading.Tasks) are added, on the file's first
#   line so that line numbers stay.
use strict;
use warnings;

my $TYPE = qr/([A-Za-z_][\w.]*(?:<(?:[^<>]++|(?&A))*>)?(?:\[\])*)(?(DEFINE)(?<A><(?:[^<>]++|(?&A))*>))/;

# The element type of a generic collection type, or undef.
sub element {
    my ($type) = @_;
    return undef unless $type =~ /^[\w.]+<(.*)>$/s;
    my $args = $1;
    my ($depth, @parts, $cur) = (0, (), '');
    for my $ch (split //, $args) {
        $depth++ if $ch eq '<';
        $depth-- if $ch eq '>';
        if ($ch eq ',' && $depth == 0) { push @parts, $cur; $cur = ''; next; }
        $cur .= $ch;
    }
    push @parts, $cur;
    s/^\s+|\s+$//g for @parts;
    return $parts[-1];
}

# The end (index after the closing brace) of the {...} starting at $i.
sub block_end {
    my ($text, $i) = @_;
    my ($depth, $in_str) = (0, 0);
    for (my $k = $i; $k < length $text; $k++) {
        my $ch = substr($text, $k, 1);
        if ($in_str) {
            if ($ch eq '\\') { $k++; next; }
            $in_str = 0 if $ch eq '"';
            next;
        }
        if ($ch eq '"') { $in_str = 1; next; }
        $depth++ if $ch eq '{';
        if ($ch eq '}') { $depth--; return $k + 1 if $depth == 0; }
    }
    return length $text;
}

# Gives every `new()` of an initializer's text the element type $elem.
sub fill {
    my ($text, $elem) = @_;
    my $out = '';
    while ($text =~ /\bnew\s*\(\s*\)/g) {
        my ($s, $e) = ($-[0], $+[0]);
        $out .= substr($text, 0, $s) . (defined $elem ? "new $elem()" : 'new()');
        my $rest = substr($text, $e);
        if ($rest =~ /^(\s*)\{/) {
            my $end = block_end($rest, length $1);
            $out .= $1 . fill(substr($rest, length $1, $end - length $1),
                              defined $elem ? element($elem) : undef);
            $rest = substr($rest, $end);
        }
        $text = $rest;
        pos($text) = 0;
    }
    return $out . $text;
}

sub modernize {
    my ($src) = @_;
    my $out = '';
    while ($src =~ /$TYPE\s+[A-Za-z_]\w*\s*=\s*(?=new\s*\(\s*\))/g) {
        my ($type, $at) = ($1, $+[0]);
        $out .= substr($src, 0, $at);
        my $rest = substr($src, $at);
        $rest =~ s/^new\s*\(\s*\)//;
        $out .= "new $type()";
        if ($rest =~ /^(\s*)\{/) {
            my $end = block_end($rest, length $1);
            $out .= $1 . fill(substr($rest, length $1, $end - length $1), element($type));
            $rest = substr($rest, $end);
        }
        $src = $rest;
        pos($src) = 0;
    }
    $out .= $src;
    $out =~ s/\b(string|object|dynamic)\?(?=[\s>,\)\]])/$1/g;
    return $out;
}

my $USINGS = 'using System; using System.IO; using System.Collections.Generic; '
           . 'using System.Linq; using System.Threading; using System.Threading.Tasks; ';

my $usings = @ARGV && $ARGV[0] eq '--usings' ? shift @ARGV : undef;
for my $file (@ARGV) {
    open(my $in, '<:raw', $file) or die "modernize: $file: $!\n";
    local $/;
    my $src = <$in>;
    close $in;
    my $new = modernize($src);
    $new = $USINGS . $new if $usings;
    next if $new eq $src;
    open(my $out, '>:raw', $file) or die "modernize: $file: $!\n";
    print $out $new;
    close $out;
}
