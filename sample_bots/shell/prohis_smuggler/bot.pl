#!/usr/bin/perl
# A Prohis smuggler in Perl: it takes Illegal Goods and convoys them, never claims, accepts every
# bribe. It reads its view with regular expressions: the base image's perl has no JSON module.
use strict;
use warnings;
$| = 1;  # stdout is a pipe: flush each answer at once

sub strings {  # the strings of the view's list "key": ["a", "b"]
    my ($line, $key) = @_;
    my ($items) = $line =~ /"$key": \[([^\]]*)\]/;
    return ($items // '') =~ /"(\w+)"/g;
}

while (my $line = <STDIN>) {
    next unless $line =~ /^\{"type": "decision", "legal": "([^"]*)"/;
    my @legal = split / /, $1;
    my %legal = map { $_ => 1 } @legal;
    my @market = strings($line, 'market');
    my @convoy = strings($line, 'convoy');
    my $goods = grep { /^(legal|illegal)$/ } strings($line, 'hand');
    my $contraband = grep { $_ eq 'illegal' } @convoy;
    my @wishes = map { "take:$_" } grep { $market[$_] eq 'illegal' } 0 .. $#market;
    push @wishes, 'pile' if $goods < 3;
    push @wishes, 'convoy:illegal' if $contraband < 2;  # hidden among legal goods, at most two
    push @wishes, qw(convoy:legal done decline accept silent waive pass);
    my ($choice) = grep { $legal{$_} } @wishes;
    print $choice // $legal[0], "\n";
}
